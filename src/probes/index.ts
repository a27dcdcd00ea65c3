import { RULES, type RuleArea } from '../contract/rules.js';
import { probeCheckout } from './checkout-probes.js';
import type { SuiteConfig } from './config.js';
import { runGenerated } from './generated/generated-probes.js';
import { probeObservations, summariseExchanges } from './observation-probes.js';
import { ProbeRun } from './probe-run.js';
import { probeCheckoutState } from './state-probes.js';
import { probeUpload } from './upload-probes.js';

export { type Format, type SuiteConfig, suiteContext } from './config.js';

/** Runs every probe group that a selected rule needs, in an order that keeps state meaningful. */
export async function runProbes(config: SuiteConfig, progress: (line: string) => void = () => {}) {
  const run = new ProbeRun(config, progress);
  await probeService(run);
  // Generated cases come after the fixed probes: their verdicts stand on what those showed first.
  const generated = config.generate ? await runGenerated(run, config.generate) : undefined;
  return { tally: run.tally.data, exchanges: run.exchanges.length, ...(generated ? { generated } : {}) };
}

/** The probes of `runProbes` into a run of one's own (whose exchanges stay at hand). */
export async function probeService(run: ProbeRun): Promise<void> {
  const { config, progress } = run;
  const selected = new Set(config.selected);
  const wants = (areas: RuleArea[]) => RULES.some((rule) => selected.has(rule.id) && areas.includes(rule.area));
  const id = Date.now().toString(36);

  if (wants(['checkout', 'format', 'http'])) {
    for (const format of config.formats) {
      progress(`checkout [${format}]`);
      await probeCheckout(run, format, id);
    }
    if (!config.readOnly) {
      progress('checkout state');
      await probeCheckoutState(run, config.formats, id);
    }
  }
  if (!config.readOnly && wants(['upload', 'format', 'http'])) {
    for (const format of config.formats) {
      progress(`upload [${format}]`);
      await probeUpload(run, format);
    }
  }
  if (wants(['observe', 'format', 'http'])) {
    progress('observations');
    await probeObservations(run);
  }
  summariseExchanges(run);
}
