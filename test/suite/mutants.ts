import { ENCODING_MUTANTS } from './encoding-mutants.js';
import { type Mutant, onCheckout, onUpload, type StarvedVariant } from './mutant-helpers.js';
import { NEGOTIATION_DIALECTS, NEGOTIATION_MUTANTS } from './negotiation-faults.js';
import { REAL_STACK_DIALECTS, REAL_STACK_MUTANTS } from './real-stack-faults.js';
import { REQUEST_MUTANTS } from './request-mutants.js';
import { STACK_DIALECTS, STACK_MUTANTS } from './stack-variants.js';
import { STATE_MUTANTS } from './state-faults.js';
import { UNUSUAL_DIALECTS } from './unusual-dialects.js';
import { UPLOAD_DIALECTS, UPLOAD_MUTANTS } from './upload-faults.js';
import { WRITER_DIALECTS } from './writer-dialects.js';
import { WRITER_MUTANTS } from './writer-mutants.js';

export type { Mutant, StarvedVariant } from './mutant-helpers.js';

// Variants of the reference service, each breaking one rule of the catalog (and what it implies),
// and variants that speak a different but conformant dialect.

const BASIC: Mutant[] = [
  {
    name: 'an upper-case JSON member',
    dialect: { rewrite: onCheckout('json', (b) => b.replace('{', '{"Currency": "EUR",')) },
    fails: ['checkout.json.casing'],
  },
  {
    name: 'a lower-case XML element',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace('<Status>', '<currency>EUR</currency><Status>')) },
    fails: ['checkout.xml.casing'],
  },
  {
    name: 'a wrong XML checkout root',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace(/<(\/?)Checkout\b/g, '<$1CheckoutResult')) },
    fails: ['checkout.xml.root'],
  },
  {
    name: 'no Tax element',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace(/\s*<Tax [^>]*\/>/, '')) },
    fails: ['checkout.xml.tax-nil'],
  },
  {
    name: 'a Tax that is not nil',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace(/<Tax [^>]*\/>/, '<Tax />')) },
    fails: ['checkout.xml.tax-nil'],
  },
  {
    name: 'a nil Tax in a foreign namespace',
    dialect: {
      rewrite: onCheckout('xml', (b) =>
        b.replace('xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"', 'xmlns:xsi="urn:example:not-xsi"'),
      ),
    },
    fails: ['checkout.xml.tax-nil'],
  },
  {
    name: 'a tax member in JSON',
    dialect: { rewrite: onCheckout('json', (b) => b.replace('{', '{"tax": null,')) },
    fails: ['checkout.json.no-tax'],
  },
  { name: 'a ReturnUrl of 4 accepted', dialect: { returnUrlMin: 4 }, fails: ['checkout.return-url.length'] },
  { name: 'a ReturnUrl of 513 accepted', dialect: { returnUrlMax: 513 }, fails: ['checkout.return-url.length'] },
  // In traffic a sound set-up refused is the service's fault: under the rule of its format too.
  {
    name: 'a ReturnUrl of 5 refused',
    dialect: { returnUrlMin: 6 },
    fails: ['checkout.return-url.length'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'a ReturnUrl of 512 refused',
    dialect: { returnUrlMax: 511 },
    fails: ['checkout.return-url.length'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'a fresh set-up that is not Open',
    dialect: { rewrite: onCheckout('any', (b) => b.replace(/Open/, 'Pending'), 'POST') },
    fails: ['checkout.status.open', 'checkout.status.known'],
  },
  {
    name: 'Amount as a string',
    dialect: { rewrite: onCheckout('json', (b) => b.replace(/"amount": ([0-9.]+)/, '"amount": "$1"')) },
    fails: ['checkout.response.schema', 'checkout.get.shape'],
  },
  {
    name: 'an altered ReturnUrl echo',
    dialect: { rewrite: onCheckout('any', (b) => b.replace('probe=', 'probe=changed-'), 'POST') },
    fails: ['checkout.echo'],
  },
  {
    name: 'a stale GET',
    dialect: { rewrite: onCheckout('any', (b) => b.replace(/-setup&/, '-earlier&'), 'GET') },
    fails: ['checkout.get.consistent'],
  },
  {
    name: 'a relative PaymentUrl',
    dialect: { rewrite: onCheckout('any', (b) => b.replace(/http:\/\/[^/]+\/v2\/payments\//, '/payments/')) },
    fails: ['checkout.payment-url'],
  },
  {
    name: 'uploads of text/plain and application/octet-stream accepted',
    dialect: { uploadTypes: ['application/pdf', 'image/png', 'image/jpeg', 'text/plain', 'application/octet-stream'] },
    fails: ['upload.content-type'],
  },
  { name: 'multipart refused', dialect: { acceptMultipart: false }, fails: ['upload.multipart'] },
  { name: 'every upload type refused', dialect: { uploadTypes: [] }, fails: ['upload.raw', 'upload.multipart'] },
  {
    name: 'a wrong FileType',
    dialect: { rewrite: onUpload('any', (b) => b.replace('PDF', 'PNG')) },
    fails: ['upload.file-type'],
  },
  {
    name: 'a wrong XML upload root',
    dialect: { rewrite: onUpload('xml', (b) => b.replace(/<(\/?)UploadResult\b/g, '<$1Upload')) },
    fails: ['upload.xml.root'],
  },
  {
    name: 'a lower-case XML upload element',
    dialect: { rewrite: onUpload('xml', (b) => b.replace(/(<\/?)FileName>/g, '$1fileName>')) },
    fails: ['upload.xml.casing'],
  },
  {
    name: 'an upper-case JSON upload member',
    dialect: { rewrite: onUpload('json', (b) => b.replace('"fileName"', '"FileName"')) },
    fails: ['upload.json.casing', 'upload.response.schema'],
  },
  { name: 'Accept: application/xml ignored', dialect: { honourAccept: false }, fails: ['format.xml'] },
  {
    name: 'XML labelled as JSON',
    dialect: {
      rewrite: (a) =>
        a.format === 'xml' ? { ...a, headers: { ...a.headers, 'content-type': 'application/json; charset=utf-8' } } : a,
    },
    fails: ['format.response-content-type'],
  },
  {
    name: 'a 500 to a malformed body',
    dialect: { rewrite: (a) => (a.status === 400 && /invalid (JSON|XML)/.test(a.body) ? { ...a, status: 500 } : a) },
    fails: ['http.no-server-error'],
  },
  {
    name: 'XML checkout requests refused',
    dialect: { acceptXmlRequests: false },
    fails: ['format.xml-request', 'checkout.return-url.length'],
  },
];

export const BREAKING: Mutant[] = [
  ...BASIC,
  ...REQUEST_MUTANTS,
  ...ENCODING_MUTANTS,
  ...STACK_MUTANTS,
  ...REAL_STACK_MUTANTS,
  ...NEGOTIATION_MUTANTS,
  ...STATE_MUTANTS,
  ...UPLOAD_MUTANTS,
  ...WRITER_MUTANTS,
];

export const CONFORMANT_DIALECTS: Mutant[] = [
  { name: 'the reference service', dialect: {}, fails: [] },
  {
    name: 'a DataContract dialect: i:nil, compact JSON, 200 on set-up, extra members',
    dialect: {
      xmlNilPrefix: 'i',
      prettyJson: false,
      setUpStatus: 200,
      extraAddressMembers: { email: 'a@b.test', phone: '+31 50 000' },
    },
    fails: [],
  },
  ...UNUSUAL_DIALECTS,
  ...STACK_DIALECTS,
  ...REAL_STACK_DIALECTS,
  ...NEGOTIATION_DIALECTS,
  ...UPLOAD_DIALECTS,
  ...WRITER_DIALECTS,
];

/**
 * Variants that give some rules no evidence: those must come out "untested" (or failed, where a
 * probe's expectation is unmet), never "passed".
 */
export const EVIDENCE_STARVED: StarvedVariant[] = [
  {
    // 400, not 401/403: a run refused for its credentials alone stops with exit 2 and no report.
    name: 'a service that refuses every checkout and upload',
    dialect: {
      rewrite: (a) =>
        a.endpoint === 'checkout' || a.endpoint === 'upload'
          ? {
              ...a,
              status: 400,
              body:
                a.format === 'json'
                  ? '{"message":"refused"}'
                  : '<?xml version="1.0"?>\n<Error>\n  <Message>refused</Message>\n</Error>',
            }
          : a,
    },
    notPassed: [
      'checkout.json.casing',
      'checkout.xml.casing',
      'checkout.xml.root',
      'checkout.response.schema',
      'checkout.xml.tax-nil',
      'checkout.json.no-tax',
      'checkout.status.open',
      'checkout.echo',
      'checkout.payment-url',
      'checkout.get.shape',
      'checkout.get.consistent',
      'checkout.country-code',
      'checkout.status.known',
      'upload.response.schema',
      'upload.json.casing',
      'upload.xml.casing',
      'upload.xml.root',
      'upload.file-type',
    ],
  },
  {
    name: 'a service that speaks JSON only',
    dialect: { honourAccept: false, acceptXmlRequests: false },
    notPassed: [
      'checkout.xml.casing',
      'checkout.xml.root',
      'checkout.xml.tax-nil',
      'upload.xml.casing',
      'upload.xml.root',
    ],
  },
];
