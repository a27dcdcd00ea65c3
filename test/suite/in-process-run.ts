import { type ProxyHandle, startProxy } from '../../proxy/proxy-server.js';
import { runSuite } from '../../src/cli/run-suite.js';
import { RULES, type RuleId, ruleById } from '../../src/contract/rules.js';
import type { RuleResult } from '../../src/findings/types.js';
import { discoverUrls, secondCheckout } from '../../src/http/discover.js';
import type { SuiteConfig } from '../../src/probes/index.js';
import { ProbeRun } from '../../src/probes/probe-run.js';
import { RecordingJudge } from '../../src/recording/recording-judge.js';
import type { Dialect } from '../../src/reference/dialect.js';
import { startReferenceService } from '../../src/reference/service.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { emptyTally, type TallyData } from '../../src/validate/tally.js';
import { exitCodeOf } from '../../src/validate/verdicts.js';

// The conformance suite run in this process against a variant of the reference service, as `run`
// runs it (find the URLs, then the suite files through the suite's engine, one verdict per rule)
// without a CLI process per variant: the matrix of variants stays fast. The CLI's own path
// (options, reports, exit codes) is tested apart, in run-command.test.ts.

export interface SuiteVariant {
  dialect: Partial<Dialect>;
  /** Upload URLs the suite is given: those of the order it places, or its content slot alone. */
  slots?: 'order' | 'content-only';
}

export interface RunOptions {
  /** Runs the suite through the proxy, which judges the traffic live as it does a client's. */
  throughProxy?: boolean;
}

export interface InProcessRun {
  rules: RuleResult[];
  statuses: Map<RuleId, RuleResult['status']>;
  /** Rules whose verdict is failed (must failures and should warnings), sorted. */
  failed: RuleId[];
  untestedMust: RuleId[];
  /** The exit code `run` would give. */
  code: 0 | 1;
  /** Every exchange the run made, order placement first: traffic a proxy would have seen. */
  exchanges: Exchange[];
  /** What failed of a rule, for a test's message. */
  detail(rule: RuleId): string;
  /** What the proxy's session saw, when the suite ran through it. */
  proxyTally?: TallyData;
}

const TIMEOUT_MS = 30_000;

/** `run --upload-types pdf,png,jpeg` against a reference service speaking `variant.dialect`. */
export async function runSuiteInProcess(variant: SuiteVariant, options: RunOptions = {}): Promise<InProcessRun> {
  const service = await startReferenceService({ dialect: variant.dialect });
  let proxy: ProxyHandle | undefined;
  try {
    if (options.throughProxy) proxy = await startProxy({ target: service.baseUrl, log: () => {} });
    const run = await runSuiteAt(proxy?.url ?? service.baseUrl, variant.slots);
    if (!proxy) return run;
    await proxy.close();
    return { ...run, proxyTally: proxy.traffic.tally.data };
  } finally {
    await proxy?.close();
    await service.close();
  }
}

/** `run --base-url baseUrl --upload-types pdf,png,jpeg`, in this process. */
export async function runSuiteAt(baseUrl: string, slots: SuiteVariant['slots'] = 'order'): Promise<InProcessRun> {
  const discovery = { baseUrl, headers: {}, readOnly: false, secrets: [], timeoutMs: TIMEOUT_MS };
  const urls = await discoverUrls(discovery);
  const second = await secondCheckout(discovery);
  const config: SuiteConfig = {
    baseUrl,
    checkoutUrl: urls.checkoutUrl,
    ...(second.checkoutUrl ? { secondCheckoutUrl: second.checkoutUrl } : {}),
    uploadUrls: slots === 'content-only' ? { content: urls.uploadUrls.content } : urls.uploadUrls,
    headers: {},
    credentialHeaders: [],
    secrets: [],
    formats: ['json', 'xml'],
    uploadTypes: ['pdf', 'png', 'jpeg'],
    selected: RULES.map((rule) => rule.id),
    strict: false,
    readOnly: false,
    timeoutMs: TIMEOUT_MS,
    preflight: emptyTally(),
  };
  // As run-conformance.ts: the exchanges that found the URLs are judged too.
  const preflight = new ProbeRun(config);
  for (const exchange of [...urls.exchanges, ...second.exchanges]) preflight.record(exchange, { format: 'any' });
  config.preflight = preflight.tally.data;
  // The suite files through the suite's engine, as `run` runs them (without its reports).
  const run = await runSuite({ config, progress: false });
  const { rules } = run;
  return {
    rules,
    statuses: new Map(rules.map((rule) => [rule.id, rule.status])),
    failed: rules
      .filter((rule) => rule.status === 'failed')
      .map((rule) => rule.id)
      .sort(),
    untestedMust: rules.filter((r) => r.status === 'untested' && ruleById(r.id).severity === 'must').map((r) => r.id),
    code: exitCodeOf(rules),
    exchanges: [...urls.exchanges, ...second.exchanges, ...run.made],
    detail: (id) =>
      rules
        .find((rule) => rule.id === id)
        ?.failures.map((f) => `[${f.format}] ${f.message}`)
        .join('\n') ?? '',
  };
}

/**
 * The run's exchanges judged as validate judges a recording of them: the rules the service broke
 * in them (response side; what the suite sent on purpose is the client's to answer for), sorted.
 */
export function brokenInTraffic(exchanges: readonly Exchange[]): { rules: RuleId[]; messages: string[] } {
  const judge = new RecordingJudge();
  exchanges.forEach((exchange, index) => {
    judge.judge(exchange, { file: 0, line: index + 1 });
  });
  return brokenBy(judge.finish().tally);
}

/** The rules a tally of traffic says the service broke (response side), sorted, with the messages. */
export function brokenBy(tally: TallyData): { rules: RuleId[]; messages: string[] } {
  const findings = tally.findings.filter(
    (finding) => finding.side === 'response' && ruleById(finding.rule).severity !== 'observe',
  );
  return {
    rules: [...new Set(findings.map((finding) => finding.rule))].sort(),
    messages: findings.map((finding) => `${finding.rule} [${finding.format}] ${finding.message}`),
  };
}
