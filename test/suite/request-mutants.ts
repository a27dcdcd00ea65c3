import { formatOfMediaType } from '../../src/validate/document.js';
import { mediaType } from '../../src/validate/exchange.js';
import { type Mutant, ok, type Rewrite } from './mutant-helpers.js';

// Variants that read requests or choose answers the way real service authors get it wrong: length
// counted otherwise than in UTF-16 units, an XML request read by its bytes or prefixes, the answer's
// format taken from something other than Accept, a checkout's state kept or cached wrongly. In
// traffic (validate, the proxy) a sound set-up refused is a service's fault whatever refused it: the
// ReturnUrl it carried was in range (checkout.return-url.length), and it was refused as the format
// it was written in (format.xml-request, format.json-request).

const between = (n: number) => n >= 5 && n <= 512;

/** GET checkout answers kept per resource and format, and served again: a stale output cache. */
function cachedGets(): Rewrite {
  const cache = new Map<string, string>();
  return (answer) => {
    if (answer.endpoint !== 'checkout' || answer.method !== 'GET' || !ok(answer)) return answer;
    const key = `${answer.path} ${answer.format}`;
    const kept = cache.get(key);
    if (kept !== undefined) return { ...answer, body: kept };
    cache.set(key, answer.body);
    return answer;
  };
}

const sentType = (headers: { 'content-type'?: string }) => formatOfMediaType(mediaType(headers['content-type']));

export const REQUEST_MUTANTS: Mutant[] = [
  {
    name: 'an empty ReturnUrl accepted (emptiness taken for none)',
    dialect: { returnUrlAccepted: (v) => v === '' || between(v.length) },
    fails: ['checkout.return-url.length'],
  },
  {
    name: 'ReturnUrl counted in UTF-8 bytes',
    dialect: { returnUrlAccepted: (v) => between(Buffer.byteLength(v)) },
    fails: ['checkout.return-url.length'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'ReturnUrl counted in code points',
    dialect: { returnUrlAccepted: (v) => between([...v].length) },
    fails: ['checkout.return-url.length'],
  },
  {
    name: 'xsi:nil recognised by its prefix, not its namespace',
    dialect: {
      readCheckout: (model, text) => {
        if (/<ReturnUrl xsi:nil="true"/.test(text)) return { ...model, returnUrl: null };
        if (/<ReturnUrl \w+:nil="true"/.test(text)) return { ...model, returnUrl: '' };
        return model;
      },
    },
    // The false nil is taken for none: what was sent ("") is not echoed either.
    fails: ['format.xml-request', 'checkout.return-url.length', 'checkout.echo'],
  },
  {
    name: 'an XML request with a byte order mark refused',
    dialect: { refuseCheckout: (_request, body) => (body[0] === 0xef ? 400 : undefined) },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'an encoding declaration refused unless it spells "UTF-8" in capitals',
    dialect: {
      refuseCheckout: (_request, body) => (/encoding="(?!UTF-8")/.test(body.toString('latin1')) ? 400 : undefined),
    },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'an XML request without a declaration refused (XML sniffed by "<?xml")',
    dialect: {
      refuseCheckout: (request, body) =>
        sentType(request.headers) === 'xml' &&
        !body
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .startsWith('<?xml')
          ? 415
          : undefined,
    },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'a charset parameter in Content-Type refused (the media type compared whole)',
    dialect: { refuseCheckout: (request) => (request.headers['content-type']?.includes(';') ? 415 : undefined) },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'POST checkout answered in the format of the request body, not of Accept',
    dialect: {
      answerFormat: (request) =>
        request.endpoint === 'checkout' && request.method === 'POST' ? sentType(request.headers) : undefined,
    },
    fails: ['format.json', 'format.xml'],
  },
  {
    name: 'GET checkout answered in JSON whatever Accept says',
    dialect: {
      answerFormat: (request) => (request.endpoint === 'checkout' && request.method === 'GET' ? 'json' : undefined),
    },
    fails: ['format.xml'],
  },
  {
    name: 'uploads answered in JSON whatever Accept says',
    dialect: { answerFormat: (request) => (request.endpoint === 'upload' ? 'json' : undefined) },
    fails: ['format.xml'],
  },
  {
    name: 'a second set-up answered with, and kept as, the first',
    dialect: { replaceSetUp: false },
    fails: ['checkout.echo', 'checkout.get.consistent'],
  },
  {
    name: 'GET checkout served from a cache per format',
    dialect: { rewrite: cachedGets() },
    fails: ['checkout.get.consistent'],
  },
];
