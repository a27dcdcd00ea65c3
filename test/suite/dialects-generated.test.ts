import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/contract/rules.js';
import { discoverUrls } from '../../src/http/discover.js';
import { runGenerated } from '../../src/probes/generated/generated-probes.js';
import { probeService, type SuiteConfig, suiteContext } from '../../src/probes/index.js';
import { ProbeRun } from '../../src/probes/probe-run.js';
import { startReferenceService } from '../../src/reference/service.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';
import { CONFORMANT_DIALECTS } from './mutants.js';

// A conformant dialect, however unusual, fails nothing under --generate either: the values and
// spellings generated cases send (markup in values, IDN hosts, "]]>", uploads past a framework's
// size limit) are ones such a dialect must take, or may refuse as the description allows.

const SEED = 3;

describe.concurrent('conformant dialects under --generate', () => {
  for (const dialect of CONFORMANT_DIALECTS) {
    it(`passes ${dialect.name}`, async () => {
      const service = await startReferenceService({ dialect: dialect.dialect });
      try {
        const urls = await discoverUrls({
          baseUrl: service.baseUrl,
          headers: {},
          secrets: [],
          timeoutMs: 30_000,
          readOnly: false,
        });
        const config: SuiteConfig = {
          baseUrl: service.baseUrl,
          checkoutUrl: urls.checkoutUrl,
          uploadUrls: dialect.slots === 'content-only' ? { content: urls.uploadUrls.content } : urls.uploadUrls,
          headers: {},
          credentialHeaders: [],
          secrets: [],
          formats: ['json', 'xml'],
          uploadTypes: ['pdf', 'png', 'jpeg'],
          selected: RULES.map((rule) => rule.id),
          strict: true,
          readOnly: false,
          timeoutMs: 30_000,
          preflight: emptyTally(),
        };
        const run = new ProbeRun(config);
        await probeService(run);
        const report = await runGenerated(run, { seed: SEED, runs: 100, timeMs: 60_000, maxUploadBytes: 256 * 1024 });
        const failed = verdictsOf(run.tally.data, suiteContext(config))
          .filter((rule) => rule.status === 'failed')
          .map((rule) => `${rule.id}: ${rule.failures.map((failure) => failure.message).join(' | ')}`);
        expect(failed).toEqual([]);
        expect(report.failures).toEqual([]);
      } finally {
        await service.close();
      }
    });
  }
});
