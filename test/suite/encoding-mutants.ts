import { type Mutant, onResources, XML_DECLARATION } from './mutant-helpers.js';

// Variants whose answers name another encoding than their bytes are in, or are in one a strict
// parser does not take: each is caught by format.well-formed (and where a client would read other
// characters than were sent, by the rules that compare them).

const declaring = (encoding: string) => (body: string) =>
  body.replace(XML_DECLARATION, `<?xml version="1.0" encoding="${encoding}"?>`);

export const ENCODING_MUTANTS: Mutant[] = [
  {
    name: 'XML answers declaring utf-16 on a UTF-8 body (the StringWriter slip)',
    dialect: { rewrite: onResources('xml', (a) => ({ ...a, body: declaring('utf-16')(a.body) })) },
    fails: ['format.well-formed'],
  },
  {
    name: 'XML answers declaring ISO-8859-1 on a UTF-8 body',
    dialect: {
      rewrite: onResources('xml', (a) => ({
        ...a,
        headers: { ...a.headers, 'content-type': 'application/xml' },
        body: declaring('ISO-8859-1')(a.body),
      })),
    },
    fails: ['format.well-formed'],
  },
  {
    name: 'XML answers in ISO-8859-1 bytes that declare no encoding',
    dialect: {
      rewrite: onResources('xml', (a) => ({
        ...a,
        headers: { ...a.headers, 'content-type': 'application/xml' },
        encoding: 'latin1',
      })),
    },
    fails: ['format.well-formed', 'checkout.echo', 'checkout.get.consistent'],
  },
  {
    name: 'a charset=utf-8 that disagrees with the declared encoding',
    dialect: { rewrite: onResources('xml', (a) => ({ ...a, body: declaring('windows-1252')(a.body) })) },
    fails: ['format.well-formed'],
  },
  {
    name: 'JSON answers that start with a byte order mark',
    dialect: { rewrite: onResources('json', (a) => ({ ...a, body: `\uFEFF${a.body}` })) },
    fails: ['format.well-formed'],
  },
  {
    name: 'JSON answers labelled charset=utf-16',
    dialect: {
      rewrite: onResources('json', (a) => ({
        ...a,
        headers: { ...a.headers, 'content-type': 'application/json; charset=utf-16' },
      })),
    },
    fails: ['format.well-formed'],
  },
];
