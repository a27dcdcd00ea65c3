import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import standalone from 'ajv/dist/standalone/index.js';
import { PRECOMPILED_FILE, SCHEMA_FILES, SCHEMAS_DIGEST, schemaCompiler, schemaId } from './schemas.js';

// A build step (`npm run build` runs it on the compiled output): writes the schemas' validators as
// plain code next to schemas.js, with a digest of the schemas they were made from. Commands and
// worker threads then start without loading Ajv and compiling, which cost each ~60 ms.

// Ajv's standalone module is CommonJS with the function as its default member.
const code = standalone.default(
  schemaCompiler(true),
  Object.fromEntries(SCHEMA_FILES.map((name) => [name, schemaId(name)])),
);
const file = join(import.meta.dirname, PRECOMPILED_FILE);
writeFileSync(file, `${code}\nexports.digest = ${JSON.stringify(SCHEMAS_DIGEST)};\n`);
