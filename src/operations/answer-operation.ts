// The operation of the interface an exchange was, for the answer-time histogram's label: the
// method and the first segment of the path under the service's base (the calls `serve --fault`
// names), else `other`. Read from the URL as a string: it runs once per exchange.

export const ANSWER_OPERATIONS = [
  'post-oauth',
  'post-orders',
  'get-orders',
  'post-checkout',
  'get-checkout',
  'post-files',
] as const;

export type AnswerOperation = (typeof ANSWER_OPERATIONS)[number] | 'other';

const KNOWN = new Set<string>(ANSWER_OPERATIONS);

/** `post-checkout` for POST {base}checkout/…; `other` for anything not under `base` or not one of them. */
export function answerOperation(method: string, url: string, base: string): AnswerOperation {
  if (!url.startsWith(base)) return 'other';
  let end = base.length;
  while (end < url.length) {
    const char = url.charCodeAt(end);
    // "/", "?" and "#" end the first segment.
    if (char === 47 || char === 63 || char === 35) break;
    end += 1;
  }
  const operation = `${method.toLowerCase()}-${url.slice(base.length, end)}`;
  return KNOWN.has(operation) ? (operation as AnswerOperation) : 'other';
}
