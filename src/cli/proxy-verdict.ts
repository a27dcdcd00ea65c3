import type { TrafficLog } from '../../proxy/exchange-log.js';
import type { ClientTestVerdict, RunResult, WrappedCommand } from '../findings/types.js';
import { consoleSummary } from '../report/console-summary.js';
import { markdownSummary } from '../report/markdown-summary.js';
import { runResult } from '../report/run-result.js';
import { commandLine } from '../report/traffic-lines.js';
import { type ClientsBy, type ClientTallyData, clientsByName, clientVerdicts } from '../validate/client-tally.js';
import { exitCodeOf, type VerdictContext, verdictsOf } from '../validate/verdicts.js';

// The end of a proxy session in the one status model: the verdict of every rule from the traffic
// that went through (a rule passes only on evidence; an untested must rule fails the session), what
// never reached the target and why, and the exit code. A session in which no request reached the
// target shows nothing about the service: it is not a pass but a run that could not be made.

export const NOT_REACHED_HEADING = 'Answered by the proxy itself (no answer came from the target)';
export const PASSED_ON_HEADING = 'Passed on unjudged (hosts that are not the interface)';
export const REFUSED_HANDSHAKES_HEADING =
  "TLS handshakes the client refused (it did not trust the proxy's local CA; see docs/interception.md)";

export interface SessionFacts {
  target: string;
  proxyUrl: string;
  started: number;
  startedMonotonic?: number;
  context: VerdictContext;
  traffic: TrafficLog;
  /** Why the recording is incomplete, if it is. */
  recordingFailure?: string;
  /** `-- COMMAND`: what ran and its exit code, which comes first when it is not 0. */
  command?: WrappedCommand;
  /** The verdicts of the client's own tests, when its traffic named them. */
  clientTests?: ClientTestVerdict[];
  /** --clients-by: how clients were told apart, and the tally keyed by client. */
  clients?: { by: ClientsBy | undefined; tally: ClientTallyData };
  /** The variables set for the command so that its HTTP stack goes through the proxy (none: --no-client-env). */
  clientEnvironment?: string[];
  /** The width of the terminal the table goes to, if it goes to one (see terminalWidth). */
  width?: number;
  /** --quiet: the rules that failed or fail the session untested, and the summary line; not the table of what held. */
  brief?: boolean;
}

export interface ProxyVerdict {
  result: RunResult;
  /** The verdict table and what the traffic held, ending in a newline: stdout, as run prints its table. */
  text: string;
  /** Why the session cannot stand as a pass (could not be made, recording incomplete), for stderr; '' when none. */
  problems: string;
  markdown: string;
  exitCode: number;
}

/** Why the session cannot stand as a run, or undefined when the target answered something. */
function notMade(facts: SessionFacts): string | undefined {
  const { traffic } = facts;
  const passedOn = traffic.passedOnLines();
  // The client never spoke to the interface because it refused the proxy's certificate: that is
  // the cause to name, not the client's aim.
  const refused = traffic.refusedHandshakeLines();
  if (refused.length > 0 && traffic.tally.data.exchanges === 0)
    return `the client refused the TLS handshake with the proxy (${refused.join(', ')}) and no exchange of the interface went through: it does not trust the proxy's local CA, most likely because it verifies against a CA bundle of its own (curl --cacert, Guzzle's verify, CURLOPT_CAINFO); see docs/interception.md, "A client that refuses the handshake" (the run could not be made)`;
  if (traffic.seen === 0 && passedOn.length > 0)
    return `only other hosts went through the proxy (${passedOn.join(', ')}), passed on unjudged; the client must send its requests for ${facts.target} through it too (the run could not be made)`;
  if (traffic.seen === 0)
    return `no request came through the proxy at ${facts.proxyUrl}; point the client at it (the run could not be made)`;
  if (traffic.reached > 0 || traffic.blocked > 0) {
    const data = traffic.tally.data;
    if (data.exchanges > 0) return undefined;
    const outside = Object.entries(data.traffic.notInterface).map(([reason, n]) => `${n}× ${reason}`);
    if (data.traffic.orders > 0) outside.push(`${data.traffic.orders} order answers`);
    return `no exchange of the interface went through the proxy (${outside.join(', ') || 'nothing judged'}); the client must send its checkout and upload requests (the URLs under ${facts.target} that the order endpoints give) through the proxy at ${facts.proxyUrl} (the run could not be made)`;
  }
  const first = traffic.notReachedLines()[0] ?? `${traffic.unjudged} exchanges not judged`;
  return `no request was answered by the target ${facts.target} (${first}); check --target and that the service is up (the run could not be made)`;
}

export function proxyVerdict(facts: SessionFacts): ProxyVerdict {
  const { traffic, context } = facts;
  const data = traffic.tally.data;
  const rules = verdictsOf(data, context);
  const failure = notMade(facts);
  // An incomplete recording cannot stand as a pass, but a failed rule is still the verdict (CLI.md).
  const rulesCode = exitCodeOf(rules);
  const ownCode = failure || (facts.recordingFailure && rulesCode !== 1) ? 2 : rulesCode;
  // The command's own failure comes first: it is what the user ran.
  const commandCode = facts.command?.exitCode;
  const exitCode = typeof commandCode === 'number' && commandCode !== 0 ? commandCode : ownCode;
  const result = runResult({
    target: facts.target,
    started: facts.started,
    ...(facts.startedMonotonic === undefined ? {} : { startedMonotonic: facts.startedMonotonic }),
    context,
    rules,
    tally: data,
    ...(facts.recordingFailure ? { recordingProblem: facts.recordingFailure } : {}),
    // A session around a command states its verdict and its final code whatever they are (CLI.md).
    ...(facts.command ? { command: { ...facts.command, verdict: ownCode } } : {}),
    ...(facts.command || exitCode !== exitCodeOf(rules) ? { exitCode } : {}),
    ...(facts.clientTests ? { clientTests: facts.clientTests } : {}),
    ...(facts.clients?.by
      ? {
          clients: {
            by: clientsByName(facts.clients.by),
            clients: clientVerdicts(facts.clients.tally, context.strict),
          },
        }
      : {}),
  });
  const notReached = traffic.notReachedLines();
  const counts = [
    `${traffic.seen} exchange${traffic.seen === 1 ? '' : 's'}`,
    `${traffic.reached} answered by the target`,
  ];
  if (notReached.length > 0) counts.push(`${traffic.notReachedCount()} by the proxy itself`);
  if (traffic.blocked > 0) counts.push(`${traffic.blocked} blocked (--mode enforce)`);
  if (traffic.unjudged > 0) counts.push(`${traffic.unjudged} could not be judged`);
  const refusedHandshakes = traffic.refusedHandshakeLines();
  if (refusedHandshakes.length > 0) {
    const count = traffic.refusedHandshakeCount();
    counts.push(`${count} TLS handshake${count === 1 ? '' : 's'} refused`);
  }
  const lines: string[] = [];
  if (!failure) lines.push(consoleSummary(result, { width: facts.width, brief: facts.brief }).trimEnd());
  if (notReached.length > 0) lines.push(`${NOT_REACHED_HEADING}:`, ...notReached.map((line) => `  ${line}`));
  const passedOn = traffic.passedOnLines();
  if (passedOn.length > 0) lines.push(`${PASSED_ON_HEADING}:`, ...passedOn.map((line) => `  ${line}`));
  if (refusedHandshakes.length > 0)
    lines.push(`${REFUSED_HANDSHAKES_HEADING}:`, ...refusedHandshakes.map((line) => `  ${line}`));
  const clientTests = facts.clientTests ?? [];
  if (clientTests.length > 0) {
    const failing = clientTests.filter((test) => !test.passed);
    lines.push(`Client tests: ${clientTests.length}, ${failing.length} broke a rule`);
    for (const test of failing) lines.push(`  ✗ ${test.name}: ${test.failed.map((f) => f.rule).join(', ')}`);
  }
  if (facts.clientEnvironment) lines.push(`set for the command: ${facts.clientEnvironment.join(', ')}`);
  lines.push(`proxy summary: ${counts.join(', ')}`);
  const title = 'print-conformance proxy';
  const command = commandLine(result);
  if (failure && command) lines.push(command.replaceAll('`', ''));
  const problems: string[] = [];
  if (failure) problems.push(`print-conformance: ${failure}`);
  if (facts.recordingFailure)
    // The verdicts stand, but what was asked for is missing: scripts must not take it as a pass.
    problems.push(`print-conformance: the recording is incomplete (${facts.recordingFailure})`);
  const markdown = failure
    ? `### ${title}: the run could not be made\n\n${failure}\n${command ? `\n${command}\n` : ''}`
    : markdownSummary(result, { title, notes: { heading: NOT_REACHED_HEADING, lines: notReached } });
  return {
    result,
    text: `${lines.join('\n')}\n`,
    problems: problems.map((line) => `${line}\n`).join(''),
    markdown,
    exitCode,
  };
}
