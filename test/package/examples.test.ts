import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';

describe('the CI examples', () => {
  const folder = join(ROOT, 'examples');
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.yml'))) {
    it(`${file} is valid YAML that runs print-conformance`, () => {
      const text = readFileSync(join(folder, file), 'utf8');
      const document = parse(text);
      expect(document).toBeTypeOf('object');
      expect(text).toContain('npx --yes print-conformance --base-url');
    });
  }
});
