import { describe, expect, it } from 'vitest';
import { selectedRules } from '../../src/cli/rule-selection.js';
import { runCli } from '../helpers/cli.js';

// A selection that names nothing must not widen the run to every rule: a CI variable that expanded
// to nothing (`--only "$RULES"`) is a usage error, as a misspelt rule ID is, with what was meant.

describe('--only and --skip', () => {
  it('refuse an --only that names nothing, in every form, instead of judging every rule', () => {
    for (const only of ['', ',', ' , ', [], ['', ',']])
      expect(() => selectedRules(only, undefined), JSON.stringify(only)).toThrow(/^--only names no rule/);
    expect(selectedRules(undefined, undefined).size).toBeGreaterThan(10);
    expect([...selectedRules('checkout.echo,,', undefined)]).toEqual(['checkout.echo']);
  });

  it('suggest the rule ID or area meant by a misspelt one', () => {
    expect(() => selectedRules('checkuot.echo', undefined)).toThrow(
      'no rule matches checkuot.echo (did you mean checkout.echo?); see "print-conformance rules"',
    );
    expect(() => selectedRules(undefined, 'uplaod.')).toThrow(/uplaod\. \(did you mean upload\.\?\)/);
    expect(() => selectedRules('zzzzzzzz', undefined)).toThrow(/^no rule matches zzzzzzzz; see/);
  });

  it('end run, validate and proxy with exit 2 and one line on an empty --only', async () => {
    const cases = [
      ['validate', '/dev/null', '--only', ''],
      ['validate', '/dev/null', '--only', ','],
      ['validate', '/dev/null', '--only', '--strict'],
      ['run', '--only', ''],
      ['proxy', '--target', 'http://127.0.0.1:9/v2/', '--only'],
    ];
    for (const args of cases) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^print-conformance: --only names no rule \(it is empty\)[^\n]*\n$/);
    }
    const empty = await runCli(['validate', '/dev/null'], { env: { PRINT_CONFORMANCE_ONLY: '' } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--only names no rule/);
  });
});
