import type { ExchangeKind } from './exchange-facts.js';
import {
  binaryExamples,
  CHECKOUT_REQUEST_EXAMPLE,
  checkoutAnswerExample,
  ERROR_EXAMPLE,
  errorXmlExample,
  PDF_EXAMPLE,
  UPLOAD_RESULT_EXAMPLE,
  xmlExample,
  xmlExampleOf,
} from './openapi-examples.js';
import { componentSchemas, componentsOf, ERROR_COMPONENT } from './openapi-schemas.js';
import { TOOL_VERSION } from './package-root.js';
import {
  EXAMPLE_CHECKOUT_CODE,
  EXAMPLE_UPLOAD_CODE,
  REFUSALS,
  SET_UP_STATUSES,
  TOKEN_LIFETIME_SECONDS,
  TOKEN_PATH,
  UPLOAD_STATUSES,
} from './real-service.js';
import { RULES } from './rules.js';
import type { SchemaName } from './schemas.js';

// An OpenAPI 3.1 document of the interface as the rules judge it, for tools that speak OpenAPI
// (Prism, Schemathesis, Dredd, Specmatic, Redoc). Schemas come from schemas/ (openapi-schemas.ts),
// examples from the real service's samples (openapi-examples.ts), statuses and security from what
// is known of the real service (real-service.ts), and each operation names the rules that judge it.

/** Where `serve --port 8080` listens; a document for another service takes its base URL. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v2/';

const ref = (component: string) => ({ $ref: `#/components/schemas/${component}` });

function resourceContent(file: SchemaName, model: Record<string, unknown>) {
  const { json, xml } = componentsOf(file);
  return {
    'application/json': { schema: ref(json), example: model },
    'application/xml': { schema: ref(xml), ...xmlExample(xmlExampleOf(file, model)) },
  };
}

const ERROR_CONTENT = {
  'application/json': { schema: ref(ERROR_COMPONENT), example: ERROR_EXAMPLE },
  'application/xml': { schema: ref(ERROR_COMPONENT), ...xmlExample(errorXmlExample()) },
};

function refusals(statuses: (keyof typeof REFUSALS)[]) {
  return Object.fromEntries(
    statuses.map((status) => [String(status), { description: REFUSALS[status], content: ERROR_CONTENT }]),
  );
}

/** The rules whose evidence is an exchange of this kind. */
const rulesOf = (kind: ExchangeKind) =>
  RULES.filter((rule) => (rule.evidence.kinds as readonly ExchangeKind[]).includes(kind)).map((rule) => rule.id);

function codeParameter(what: string, givenAs: string, example: string) {
  return {
    name: 'code',
    in: 'path',
    required: true,
    description: `Opaque ${what} code, from the URL the order gives (${givenAs}).`,
    schema: { type: 'string' },
    example,
  };
}

/**
 * Answers of success: a 201 may say in Location where what it made stands, as the real service's
 * checkout does. Not required: the interface names no header, and conformant services omit it.
 */
function successes(statuses: readonly number[], what: string, content: unknown, url: string) {
  const location = {
    description: 'The URL of what was set up or stored, when the service gives it.',
    schema: { type: 'string', format: 'uri' },
    example: url,
  };
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      status === 201
        ? { description: `${what}, its URL in Location if given.`, headers: { Location: location }, content }
        : { description: `${what}.`, content },
    ]),
  );
}

export function openApiDocument(options: { baseUrl?: string } = {}): Record<string, unknown> {
  const base = options.baseUrl ?? DEFAULT_BASE_URL;
  const checkoutUrl = `${base}checkout/${EXAMPLE_CHECKOUT_CODE}`;
  const answer = resourceContent('checkout', checkoutAnswerExample(base));
  const setUp = successes(SET_UP_STATUSES, 'Set up: the checkout', answer, checkoutUrl);
  const stored = resourceContent('upload-result', UPLOAD_RESULT_EXAMPLE);
  const uploaded = successes(UPLOAD_STATUSES, 'Stored: the file', stored, `${base}files/${EXAMPLE_UPLOAD_CODE}`);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Print ordering service: checkout and file upload',
      version: TOOL_VERSION,
      description:
        'Derived by print-conformance from its JSON Schemas and rule catalog. JSON members are camelCase; XML elements are PascalCase as each XML Object names them, and XML checkout answers carry a nil <Tax> (CheckoutXml). JSON is the default; Accept: application/xml selects XML, Content-Type says how a request body is written. Each operation lists, in x-conformance-rules, the rules that judge its exchanges (print-conformance rules).',
    },
    servers: [
      {
        url: '{baseUrl}',
        // The variable's own description would say this, but swagger-parser's bundled 3.1 schema
        // refuses a description on a server variable; the server's description says it instead.
        description:
          'The base URL of the service: checkout/{code} and files/{code} stand under it. The baseUrl variable is written without the trailing slash.',
        variables: { baseUrl: { default: base.replace(/\/$/, '') } },
      },
    ],
    security: [{ clientCredentials: [] }, { bearer: [] }],
    tags: [
      { name: 'checkout', description: 'The payment step of an order, at the checkout URL the order gives.' },
      { name: 'upload', description: 'Print files of an order, at the upload URLs the order gives.' },
    ],
    paths: {
      '/checkout/{code}': {
        parameters: [codeParameter('checkout', 'checkout.setupUrl', EXAMPLE_CHECKOUT_CODE)],
        post: {
          operationId: 'setUpCheckout',
          tags: ['checkout'],
          summary: 'Set up the payment step of an order.',
          description:
            'Sends the return URL (5 to 512 characters) and the billing address; the answer echoes them and adds Amount, Status (Open when fresh) and the PaymentUrl the client redirects the customer to.',
          requestBody: {
            required: true,
            content: resourceContent('checkout-request', CHECKOUT_REQUEST_EXAMPLE),
          },
          responses: { ...setUp, ...refusals([400, 401, 403, 404, 415]) },
          'x-conformance-rules': rulesOf('POST checkout'),
        },
        get: {
          operationId: 'getCheckout',
          tags: ['checkout'],
          summary: 'Read the payment step of an order: the same shape as the set-up answer.',
          description: 'Answers the checkout as the set-up answered it, with the payment status as it stands now.',
          responses: { '200': { description: 'The checkout.', content: answer }, ...refusals([401, 403, 404]) },
          'x-conformance-rules': rulesOf('GET checkout'),
        },
      },
      '/files/{code}': {
        parameters: [codeParameter('upload', 'items[].files.*.uploadUrl', EXAMPLE_UPLOAD_CODE)],
        post: {
          operationId: 'uploadFile',
          tags: ['upload'],
          summary: 'Upload a print file: the raw bytes with their type, or a multipart/form-data file part.',
          description:
            'Content-Type names the file type (application/pdf, image/png or image/jpeg); a book content file must be a PDF. The answer names the file and the type the service found in its bytes.',
          requestBody: {
            required: true,
            content: {
              'application/pdf': { schema: { type: 'string', format: 'binary' }, example: PDF_EXAMPLE },
              'image/png': {
                schema: { type: 'string', format: 'binary' },
                examples: binaryExamples('png', 'PNG', 'image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
              },
              'image/jpeg': {
                schema: { type: 'string', format: 'binary' },
                examples: binaryExamples('jpeg', 'JPEG', 'image/jpeg', [0xff, 0xd8, 0xff]),
              },
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: { file: { type: 'string', format: 'binary' } },
                },
                encoding: { file: { contentType: 'application/pdf, image/png, image/jpeg' } },
                example: { file: PDF_EXAMPLE },
              },
            },
          },
          responses: { ...uploaded, ...refusals([400, 401, 403, 404, 415]) },
          'x-conformance-rules': rulesOf('POST files'),
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        clientCredentials: {
          type: 'oauth2',
          description: `OAuth 2.0 client credentials, as the real service: POST {baseUrl}/${TOKEN_PATH} with the form body grant_type=client_credentials&client_id=…&client_secret=…, answered {"access_token": …, "token_type": "bearer", "expires_in": ${TOKEN_LIFETIME_SECONDS}, "scope": …}; requests then carry Authorization: Bearer <token>.`,
          flows: { clientCredentials: { tokenUrl: `${base}${TOKEN_PATH}`, scopes: {} } },
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A token got beforehand, sent as Authorization: Bearer <token>.',
        },
      },
    },
  };
}
