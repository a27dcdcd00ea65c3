import type { JsonSchema } from './schemas.js';

// The body of a refusal. The real service says only that it carries "a detailed error message plus
// a few hints"; this is the shape the reference service writes (writeErrorXml in XML). No rule
// judges it: observe.error-body records what a service answers.

export const ERROR_ROOT = 'Error';
/** Element of one hint inside <Hints>: XML names list items in the singular. */
export const HINT_ELEMENT = 'Hint';

export const ERROR_BODY: JsonSchema = {
  title: 'Error',
  description:
    "A refusal: a message and a few hints. The real service does not publish the shape of its error bodies; this is the reference service's.",
  type: 'object',
  properties: {
    message: { type: 'string' },
    hints: { type: 'array', items: { type: 'string', xml: { name: HINT_ELEMENT } } },
  },
};
