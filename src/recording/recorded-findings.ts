import { type RuleId, ruleById } from '../contract/rules.js';
import type { Violation } from '../findings/types.js';
import { type Exchange, SECRET_MASK } from '../validate/exchange.js';
import { formatOnSide, type Judgement } from '../validate/index.js';

// A recording masks secrets, and validate judges what was written: a ReturnUrl whose token was
// masked cannot be measured, a masked member cannot be compared or typed. The proxy judged the
// same exchange live, on the values themselves, and wrote its findings beside it. Where the
// recording holds masks, a finding of the proxy's on a rule that masks hide, which validate did
// not find again, is taken over: validate never passes what the proxy saw fail. Only findings
// are taken over, never the absence of one, and only on those rules.

/** Rules about values a recording may mask: lengths, sameness, syntax and types of members. */
const HIDDEN_BY_MASKS: ReadonlySet<RuleId> = new Set<RuleId>([
  'checkout.return-url.length',
  'checkout.echo',
  'checkout.get.consistent',
  'checkout.payment-url',
  'checkout.country-code',
  'checkout.status.open',
  'checkout.status.known',
  'checkout.request.schema',
  'checkout.response.schema',
  'checkout.get.shape',
  'upload.file-type',
]);

function holdsMask(exchange: Exchange): boolean {
  return (
    exchange.request.url.includes(SECRET_MASK) ||
    exchange.request.body?.text?.includes(SECRET_MASK) === true ||
    exchange.response?.body?.text?.includes(SECRET_MASK) === true
  );
}

/** A recorded finding, as far as it can be read: a rule masks hide, a side, a message. */
function recordedFinding(value: unknown): Violation | undefined {
  const finding = value as Partial<Record<keyof Violation, unknown>> | null;
  if (finding === null || typeof finding !== 'object') return undefined;
  const { rule, side, message, path } = finding;
  if (typeof rule !== 'string' || !HIDDEN_BY_MASKS.has(rule as RuleId)) return undefined;
  if ((side !== 'request' && side !== 'response') || typeof message !== 'string') return undefined;
  // The severity is the catalog's, whatever the line says.
  const read: Violation = { rule: rule as RuleId, severity: ruleById(rule as RuleId).severity, side, message };
  if (typeof path === 'string') read.path = path;
  return read;
}

/** `judged`, with the recorded findings on rules that the exchange's masks kept from being judged again. */
export function withRecordedFindings(exchange: Exchange, recorded: unknown, judged: Judgement): Judgement {
  if (!Array.isArray(recorded) || recorded.length === 0) return judged;
  const found = new Set(judged.violations.map((v) => `${v.rule}@${v.side}`));
  const taken: Violation[] = [];
  for (const value of recorded) {
    const finding = recordedFinding(value);
    if (!finding) continue;
    const key = `${finding.rule}@${finding.side}`;
    if (found.has(key)) continue;
    found.add(key);
    taken.push(finding);
  }
  // Most recorded findings are found again: the bodies are searched for masks only when one is not.
  if (taken.length === 0 || !holdsMask(exchange)) return judged;
  const tested = [...judged.tested];
  for (const { rule, side } of taken)
    if (!tested.some((t) => t.rule === rule && t.side === side))
      tested.push({ rule, side, format: formatOnSide(judged.facts, side) });
  return { ...judged, violations: [...judged.violations, ...taken], tested };
}
