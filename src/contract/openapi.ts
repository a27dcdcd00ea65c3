import { TOOL_VERSION } from './package-root.js';
import { type JsonSchema, SCHEMA_FILES, type SchemaName, schemas, xmlRootOf } from './schemas.js';

// An OpenAPI 3.1 document of the interface, derived from the same JSON Schemas, for tools that
// speak OpenAPI (Prism, Schemathesis, Dredd). XML names come from each schema's x-xml annotation.

const componentName = (file: SchemaName) => file.replace(/(^|-)(\w)/g, (_, _dash, c: string) => c.toUpperCase());

function asComponent(schema: JsonSchema): JsonSchema {
  const copy = JSON.parse(JSON.stringify(schema), (key, value) => {
    if (key === '$ref' && typeof value === 'string' && value.endsWith('.json')) {
      return `#/components/schemas/${componentName(value.replace(/\.json$/, '') as SchemaName)}`;
    }
    return value;
  }) as JsonSchema;
  delete copy.$schema;
  delete copy.$id;
  const root = copy['x-xml']?.root;
  if (root) copy.xml = { name: root };
  return copy;
}

const ref = (file: SchemaName) => ({ $ref: `#/components/schemas/${componentName(file)}` });

function bothFormats(file: SchemaName) {
  return {
    'application/json': { schema: ref(file) },
    'application/xml': { schema: { ...ref(file), xml: { name: xmlRootOf(file) } } },
  };
}

const ERROR = { description: 'Refused: invalid input, unknown code, or a type the service does not take.' };

export function openApiDocument(): Record<string, unknown> {
  const code = (what: string) => ({
    name: 'code',
    in: 'path',
    required: true,
    description: `Opaque ${what} code, from the URLs the order endpoints give.`,
    schema: { type: 'string' },
  });
  const checkoutAnswer = { description: 'The checkout.', content: bothFormats('checkout') };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Print ordering service: checkout and file upload',
      version: TOOL_VERSION,
      description: 'Derived by print-conformance from its JSON Schemas. XML answers also carry <Tax xsi:nil="true"/>.',
    },
    paths: {
      '/checkout/{code}': {
        parameters: [code('checkout')],
        post: {
          operationId: 'setUpCheckout',
          summary: 'Set up the payment step of an order.',
          requestBody: { required: true, content: bothFormats('checkout-request') },
          responses: { '200': checkoutAnswer, '201': checkoutAnswer, '400': ERROR, '404': ERROR },
        },
        get: {
          operationId: 'getCheckout',
          summary: 'Read the payment status of an order.',
          responses: { '200': checkoutAnswer, '404': ERROR },
        },
      },
      '/files/{code}': {
        parameters: [code('upload')],
        post: {
          operationId: 'uploadFile',
          summary: 'Upload a print file (raw bytes with its type, or a multipart/form-data file part).',
          requestBody: {
            required: true,
            content: {
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'image/jpeg': { schema: { type: 'string', format: 'binary' } },
              'multipart/form-data': {
                schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } },
              },
            },
          },
          responses: {
            '200': { description: 'The stored file.', content: bothFormats('upload-result') },
            '400': ERROR,
            '404': ERROR,
            '415': ERROR,
          },
        },
      },
    },
    components: {
      schemas: Object.fromEntries(SCHEMA_FILES.map((file) => [componentName(file), asComponent(schemas[file])])),
    },
  };
}
