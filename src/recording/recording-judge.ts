import { redactText } from '../http/redact.js';
import type { ExchangeSummary } from '../probes/config.js';
import { summariseExchange } from '../report/exchange-summary.js';
import { sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, endpointOf, type Violation } from '../validate/exchange.js';
import { CheckoutState, validateExchange } from '../validate/index.js';

// Judges recorded exchanges one line at a time and keeps what a report needs: how many exchanges of
// each kind were seen, how often each rule broke, and the first few breaches of each rule with the
// exchange that showed them. The same judge runs in-process or in a worker thread.

/** Where a line came from: the file's place in the list and the line's number in the file. */
export interface LineRef {
  file: number;
  line: number;
}

export interface KeptFinding {
  at: LineRef;
  rule: string;
  format: 'json' | 'xml' | 'any';
  message: string;
  exchange: ExchangeSummary;
}

export interface LineWarning {
  at: LineRef;
  message: string;
}

export interface JudgeResult {
  seen: { checkout: number; upload: number; any: number };
  counts: Record<string, number>;
  kept: KeptFinding[];
  warnings: LineWarning[];
}

export const KEPT_PER_RULE = 50;

function emptyResult(): JudgeResult {
  return { seen: { checkout: 0, upload: 0, any: 0 }, counts: {}, kept: [], warnings: [] };
}

/** The format an exchange was spoken in, for per-format verdicts: its answer's, else its request's. */
function formatOf(exchange: Exchange): 'json' | 'xml' | 'any' {
  const text = bodyText(exchange.response?.body) || bodyText(exchange.request.body) || '';
  return sniffFormat(text) ?? 'any';
}

function isExchange(value: unknown): value is Exchange {
  const request = (value as { request?: { method?: unknown; url?: unknown } } | null)?.request;
  return typeof request?.method === 'string' && typeof request.url === 'string';
}

export class RecordingJudge {
  private readonly state = new CheckoutState();
  private readonly result = emptyResult();

  /** @param selected rule IDs to judge; the others are not counted. */
  constructor(private readonly selected: ReadonlySet<string>) {}

  /** A line or entry skipped before it reached the judge (an unreadable HAR entry). */
  warn(message: string, at: LineRef): void {
    this.result.warnings.push({ at, message });
  }

  judgeLine(text: string, at: LineRef): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.result.warnings.push({ at, message: `line ${at.line} is not JSON (cut off?); skipped` });
      return;
    }
    if (!isExchange(value)) {
      this.result.warnings.push({ at, message: `line ${at.line} has no request method and URL; skipped` });
      return;
    }
    this.judge(value, at);
  }

  judge(exchange: Exchange, at: LineRef): void {
    const { seen, counts, kept } = this.result;
    let violations: Violation[];
    try {
      violations = validateExchange(exchange, this.state);
    } catch (error) {
      // One exchange the core cannot judge (a recording of the wrong shape, say) must not cost the
      // verdict on all the others: it is skipped with a warning, like a line that does not parse.
      this.result.warnings.push({
        at,
        message: `line ${at.line} could not be judged: ${redactText((error as Error).message)}`,
      });
      return;
    }
    seen.any += 1;
    const endpoint = endpointOf(exchange.request.url);
    if (endpoint.kind !== 'other') seen[endpoint.kind] += 1;
    // Traffic is judged on both sides: a client breaking a rule is as much a finding as a service.
    for (const violation of violations) {
      if (!this.selected.has(violation.rule)) continue;
      // A large recording can break one rule a million times: count them all, keep a few to show.
      const count = (counts[violation.rule] ?? 0) + 1;
      counts[violation.rule] = count;
      if (count > KEPT_PER_RULE) continue;
      kept.push({
        at,
        rule: violation.rule,
        format: formatOf(exchange),
        // Messages quote what was sent (a ReturnUrl, the start of a broken body): redacted too.
        message: redactText(`${violation.side}: ${violation.message}`),
        exchange: summariseExchange(exchange),
      });
    }
  }

  finish(): JudgeResult {
    return this.result;
  }
}

const byPlace = (a: { at: LineRef }, b: { at: LineRef }) => a.at.file - b.at.file || a.at.line - b.at.line;

/** Results of judges that saw disjoint parts of the same recordings, as if one judge saw them all. */
export function mergeJudgeResults(parts: JudgeResult[]): JudgeResult {
  const merged = emptyResult();
  for (const part of parts) {
    merged.seen.any += part.seen.any;
    merged.seen.checkout += part.seen.checkout;
    merged.seen.upload += part.seen.upload;
    for (const [rule, count] of Object.entries(part.counts)) merged.counts[rule] = (merged.counts[rule] ?? 0) + count;
    merged.kept.push(...part.kept);
    merged.warnings.push(...part.warnings);
  }
  // Each part kept its own first few of each rule; the first few overall are among them.
  merged.kept.sort(byPlace);
  const shown = new Map<string, number>();
  merged.kept = merged.kept.filter((finding) => {
    const count = (shown.get(finding.rule) ?? 0) + 1;
    shown.set(finding.rule, count);
    return count <= KEPT_PER_RULE;
  });
  merged.warnings.sort(byPlace);
  return merged;
}
