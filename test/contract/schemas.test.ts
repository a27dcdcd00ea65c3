import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  AJV_OPTIONS,
  PRECOMPILED_FILE,
  precompiled,
  SCHEMA_FILES,
  SCHEMAS_DIGEST,
  type SchemaName,
  schemaCompiler,
  schemaId,
  schemas,
  validatorFor,
} from '../../src/contract/schemas.js';
import { ROOT } from '../helpers/cli.js';

// The tool compiles its schemas without checking them against the meta-schema (it costs every
// start); this is where they are checked, so a broken schema cannot ship.

describe('the shipped JSON Schemas', () => {
  it('are valid JSON Schema 2020-12, each one', () => {
    const checking = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    checking.addKeyword({ keyword: 'x-xml', schemaType: 'object' });
    for (const name of SCHEMA_FILES) {
      expect(checking.validateSchema(schemas[name]), `${name}: ${checking.errorsText()}`).toBe(true);
    }
  });

  it('catch a schema the meta-schema refuses', () => {
    const checking = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    expect(checking.validateSchema({ type: 'object', required: 'amount' })).toBe(false);
  });

  it('compile, and judge a value by them', () => {
    const checkout = validatorFor('checkout');
    expect(checkout({})).toBe(false);
    expect(checkout.errors?.map((error) => error.params.missingProperty)).toContain('paymentUrl');
  });

  it('are written out by the build as validators that judge exactly as Ajv does at run time', () => {
    const built = precompiled(join(ROOT, 'dist', 'src', 'contract', PRECOMPILED_FILE));
    expect(built, 'npm run build writes them, with the digest of these schemas').toBeDefined();
    const ajv = schemaCompiler();
    const address = { name: 'A', line1: 'L', postCode: 'P', city: 'C', country: 'NL' };
    const samples: Record<SchemaName, unknown[]> = {
      address: [address, {}, { ...address, country: 7 }, 'text'],
      billing: [{ address }, {}, { address: null }],
      'checkout-request': [{ returnUrl: 'https://r.test/', billing: { address } }, { returnUrl: 'x'.repeat(513) }, []],
      checkout: [
        { amount: 1.5, status: 'Open', paymentUrl: 'https://p.test/', returnUrl: null, billing: { address } },
        { amount: '1.5', status: 'Open', paymentUrl: 'https://p.test/', billing: {} },
        {},
      ],
      'upload-result': [{ fileName: 'content', fileType: 'PDF' }, { fileName: 3 }, null],
    };
    for (const name of SCHEMA_FILES) {
      const atBuild = built?.[name];
      const atRunTime = ajv.getSchema(schemaId(name));
      for (const sample of samples[name]) {
        expect(atBuild?.(sample), `${name} ${JSON.stringify(sample)}`).toBe(atRunTime?.(sample));
        expect(atBuild?.errors ?? null).toEqual(atRunTime?.errors ?? null);
      }
    }
  });

  it('spare the built tool loading Ajv and compiling at every start', () => {
    const script = `
      const { validatorFor } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'contract', 'schemas.js'))});
      validatorFor('checkout')({});
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(['ajv/dist/2020.js', 'ajv/dist/runtime/ucs2length.js'].map((m) => loaded.some((k) => k.endsWith(m)))));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([false, true]);
  });

  it('are compiled afresh when the written validators were made from other schemas, are missing or damaged', () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-validators-'));
    try {
      const file = (digest: string) => {
        const path = join(folder, `${digest}.cjs`);
        writeFileSync(path, `exports.checkout = () => true;\nexports.digest = ${JSON.stringify(digest)};\n`);
        return path;
      };
      expect(precompiled(file(SCHEMAS_DIGEST))?.checkout).toBeTypeOf('function');
      expect(precompiled(file('made-from-older-schemas'))).toBeUndefined();
      expect(precompiled(join(folder, 'missing.cjs'))).toBeUndefined();
      writeFileSync(join(folder, 'broken.cjs'), 'exports.checkout = (;');
      expect(precompiled(join(folder, 'broken.cjs'))).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
