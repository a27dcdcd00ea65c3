import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi.js';

// The export read by a linter teams gate their pipelines on. swagger-parser validates against its
// own bundled OpenAPI 3.1 schema, which is stricter than the specification in places (it refuses a
// description on a server variable): the document must pass it as it is, with no edits.

/** A document is walked as the JSON it is. */
type Json = any;

/** swagger-parser dereferences in place: each check gets its own copy. */
const validated = (document: Json) => SwaggerParser.validate(structuredClone(document));

describe('swagger-parser reading the OpenAPI export', () => {
  it('validates the document, for the default base and for another service', async () => {
    await expect(validated(openApiDocument())).resolves.toBeTruthy();
    await expect(validated(openApiDocument({ baseUrl: 'https://test.example.com/v2/' }))).resolves.toBeTruthy();
  });

  it('refuses what its bundled schema refuses, so the check above can fail', async () => {
    const document: Json = openApiDocument();
    document.servers[0].variables.baseUrl.description = 'Without the trailing slash.';
    await expect(validated(document)).rejects.toThrow(/servers|variables|description/i);
  });
});
