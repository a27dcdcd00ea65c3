import { describe, expect, it } from 'vitest';
import { type RuleId, ruleById } from '../../src/contract/rules.js';
import { judgeRecordings } from '../../src/recording/judge-recordings.js';
import type { TallyData } from '../../src/validate/tally.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { brokenBy, type InProcessRun, runSuiteAt, runSuiteInProcess } from '../suite/in-process-run.js';
import { BREAKING } from '../suite/mutants.js';
import { NEGOTIATION_DIALECTS, NEGOTIATION_MUTANTS } from '../suite/negotiation-faults.js';
import { REAL_STACK_DIALECTS, REAL_STACK_MUTANTS } from '../suite/real-stack-faults.js';
import { STACK_DIALECTS, STACK_MUTANTS } from '../suite/stack-variants.js';

// The suite run through the proxy against how real stacks write the interface: the proxy reads
// every body as the suite does (ISO-8859-1 by its declaration and charset, content codings undone,
// bodies that are neither JSON nor XML for what they are), judges the service
// under the same rules, and finds the faults traffic can show; a conformant dialect shows none.

/** What the proxy's session saw of the run. */
function proxySession(run: InProcessRun): TallyData {
  if (!run.proxyTally) throw new Error('the suite did not run through the proxy');
  return run.proxyTally;
}

const sorted = (ids: readonly RuleId[]) => [...new Set(ids)].sort();
const inTraffic = (fails: readonly RuleId[]) => fails.filter((id) => ruleById(id).faces.includes('traffic'));

const named = (name: string) => {
  const found = BREAKING.find((mutant) => mutant.name === name);
  if (!found) throw new Error(`no mutant ${name}`);
  return found;
};

/** Refusals a proxy must see as the service's, as the suite does: a valid ReturnUrl, all XML set-ups. */
const REFUSING = [named('a ReturnUrl of 512 refused'), named('ReturnUrl counted in UTF-8 bytes')];

describe.concurrent('the proxy in front of real stacks', () => {
  for (const dialect of [...STACK_DIALECTS, ...NEGOTIATION_DIALECTS, ...REAL_STACK_DIALECTS]) {
    it(`finds nothing wrong with ${dialect.name}`, async () => {
      const run = await runSuiteInProcess(dialect, { throughProxy: true });
      expect(run.failed).toEqual([]);
      const broken = brokenBy(proxySession(run));
      expect(broken.rules, broken.messages.join('\n')).toEqual([]);
    });
  }

  for (const mutant of [...STACK_MUTANTS, ...NEGOTIATION_MUTANTS, ...REAL_STACK_MUTANTS, ...REFUSING]) {
    it(`finds ${mutant.name}`, async () => {
      const run = await runSuiteInProcess(mutant, { throughProxy: true });
      expect(run.failed).toEqual(sorted(mutant.fails));
      const broken = brokenBy(proxySession(run));
      expect(broken.rules, broken.messages.join('\n')).toEqual(sorted(mutant.traffic ?? inTraffic(mutant.fails)));
    });
  }

  it('records ISO-8859-1 answers so that validate reads them as the proxy did, NDJSON and HAR alike', async () => {
    const php = STACK_DIALECTS[0];
    if (!php?.name.startsWith('a Latin-1 PHP dialect')) throw new Error('the Latin-1 PHP dialect moved');
    const setup = await proxiedService({ dialect: php.dialect });
    try {
      expect((await runSuiteAt(setup.proxy.url)).failed).toEqual([]);
      const recorded = await setup.recorded();
      const latin1 = recorded.find((e) => e.response?.headers['content-type']?.includes('ISO-8859-1'));
      expect(latin1?.response?.body?.text).toMatch(/^<\?xml version="1.0" encoding="ISO-8859-1"\?>/);
      expect(recorded.some((e) => e.response?.body?.text?.includes('Café Müller'))).toBe(true);
      expect(recorded.flatMap((e) => e.violations.filter((v) => v.side === 'response'))).toEqual([]);
      for (const file of [setup.recordFile, setup.harFile]) {
        const judged = await judgeRecordings([file], { jobs: 1 });
        const broken = brokenBy(judged.tally);
        expect(broken.rules, `${file}: ${broken.messages.join('\n')}`).toEqual([]);
        expect(judged.tally.evidence['checkout.echo']?.xml ?? 0, file).toBeGreaterThan(0);
      }
    } finally {
      await setup.dispose();
    }
  });

  it('records an answer that does not decode as its coding so that validate fails it as the proxy did, NDJSON and HAR alike', async () => {
    const gzipNamed = NEGOTIATION_MUTANTS.find((mutant) => mutant.name.startsWith('Content-Encoding: gzip named'));
    if (!gzipNamed) throw new Error('the gzip mutant moved');
    const setup = await proxiedService({ dialect: gzipNamed.dialect });
    try {
      expect((await runSuiteAt(setup.proxy.url)).failed).toEqual(['format.well-formed']);
      for (const file of [setup.recordFile, setup.harFile]) {
        const judged = await judgeRecordings([file], { jobs: 1 });
        expect(brokenBy(judged.tally).rules, file).toEqual(['format.well-formed']);
      }
    } finally {
      await setup.dispose();
    }
  });

  it('never passes format.xml-request when every XML set-up was refused', async () => {
    const run = await runSuiteInProcess(named('XML checkout requests refused'), { throughProxy: true });
    const tally = proxySession(run);
    expect(tally.broken['format.xml-request']?.xml ?? 0).toBeGreaterThan(0);
    expect(brokenBy(tally).rules).toContain('format.xml-request');
  });
});
