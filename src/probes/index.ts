import { RULES, type RuleArea } from '../contract/rules.js';
import { everyAnswerGone } from '../validate/gone-answers.js';
import { probeCheckout } from './checkout-probes.js';
import type { SuiteConfig } from './config.js';
import { runGenerated } from './generated/generated-probes.js';
import { probeObservations, summariseExchanges } from './observation-probes.js';
import { ProbeRun, type ProgressDetail } from './probe-run.js';
import { probeCheckoutState } from './state-probes.js';
import { probeUpload } from './upload-probes.js';

export { type Format, type SuiteConfig, suiteContext } from './config.js';

/** Runs every probe group that a selected rule needs, in an order that keeps state meaningful. */
export async function runProbes(
  config: SuiteConfig,
  progress: (line: string) => void = () => {},
  told: ProgressDetail = { requests: false },
) {
  const run = new ProbeRun(config, progress, told);
  await probeService(run);
  // Generated cases come after the fixed probes: their verdicts stand on what those showed first.
  const generated = config.generate ? await runGenerated(run, config.generate) : undefined;
  return {
    tally: run.tally.data,
    exchanges: run.exchanges.length,
    /** The exchanges themselves, for a recording of the run. */
    made: run.exchanges,
    ...(generated ? { generated } : {}),
  };
}

/** The probes of `runProbes` into a run of one's own (whose exchanges stay at hand). */
export async function probeService(run: ProbeRun): Promise<void> {
  const { config } = run;
  const selected = new Set(config.selected);
  const wants = (areas: RuleArea[]) => RULES.some((rule) => selected.has(rule.id) && areas.includes(rule.area));
  const id = Date.now().toString(36);

  if (wants(['checkout', 'format', 'http'])) {
    for (const format of config.formats) {
      await run.phase(`checkout [${format}]`, () => probeCheckout(run, format, id));
      // A checkout URL that answers nothing but 404 or 410 is stale: the rest would show only that.
      if (everyAnswerGone(run.tally.data.answers, ['POST checkout', 'GET checkout'])) return;
    }
    if (!config.readOnly) await run.phase('checkout state', () => probeCheckoutState(run, config.formats, id));
  }
  if (!config.readOnly && wants(['upload', 'format', 'http'])) {
    for (const format of config.formats) await run.phase(`upload [${format}]`, () => probeUpload(run, format));
  }
  if (wants(['observe', 'format', 'http'])) await run.phase('observations', () => probeObservations(run, id));
  summariseExchanges(run);
}
