import { UsageError } from '../findings/usage-error.js';
import { HttpError } from './http-error.js';

// Faults a client team asks the reference service for (`serve --fault NAME…`), so that its retry and
// error paths meet the same service as its happy path. Each fault is one documented behaviour of a
// real service on a bad day; the suite and the proxy judge a faulty service as they judge any other.

/** The calls a fault can be aimed at, named by method and the first segment of their path. */
export const OPERATIONS = [
  'post-orders',
  'get-orders',
  'post-checkout',
  'get-checkout',
  'post-files',
  'post-oauth',
] as const;
export type Operation = (typeof OPERATIONS)[number];
/** `any`: every operation but POST oauth (a client fetching a token is not "the next call"). */
type Target = Operation | 'any';

export type Fault =
  | { name: string; kind: 'expire-tokens'; requests: number }
  | { name: string; kind: 'status'; status: 401 | 500 | 503; target: Target; remaining: number }
  | { name: string; kind: 'slow'; target: Target; ms: number }
  | { name: string; kind: 'payment-fails' };

/** The documented list, as `serve --help` and the README give it. */
export const FAULT_LIST: [string, string][] = [
  [
    'expire-tokens:N',
    'bearer tokens expire after N requests each (401, WWW-Authenticate error="invalid_token"); a new token from POST oauth works for N more. Turns token checks on (any client credentials get a token unless --client-id is given)',
  ],
  ['401:OPERATION[:COUNT]', 'answer OPERATION 401, as to an expired token (401:any:1 — the next call)'],
  ['500:OPERATION[:COUNT]', 'answer OPERATION 500 Internal Server Error'],
  ['503:OPERATION[:COUNT]', 'answer OPERATION 503 Service Unavailable with Retry-After: 1'],
  ['slow:OPERATION:MS', 'answer OPERATION only after MS milliseconds'],
  ['payment-fails', 'the payment screen declines: its pay button ends in Status Failed'],
];

export const OPERATION_HELP = `OPERATION is one of ${OPERATIONS.join(', ')}, or any (all of them but post-oauth); COUNT limits the fault to the first COUNT calls (default: every call)`;

function positiveInteger(text: string | undefined, fault: string, what: string, max: number): number {
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < 1 || value > max)
    throw new UsageError(`--fault ${fault}: ${what} must be a whole number from 1 to ${max}`);
  return value;
}

function targetOf(text: string | undefined, fault: string): Target {
  if (text === 'any' || OPERATIONS.includes(text as Operation)) return text as Target;
  throw new UsageError(`--fault ${fault}: name the operation, one of ${OPERATIONS.join(', ')} or any`);
}

/** Reads one `--fault` value; a usage error names what is wrong and the known faults. */
export function parseFault(text: string): Fault {
  const [head, ...rest] = text.split(':');
  const arity = (min: number, max: number) => {
    if (rest.length < min || rest.length > max)
      throw new UsageError(
        `--fault ${text}: expected ${FAULT_LIST.find(([name]) => name.startsWith(`${head}:`))?.[0]}`,
      );
  };
  switch (head) {
    case 'expire-tokens':
      arity(1, 1);
      return { name: text, kind: 'expire-tokens', requests: positiveInteger(rest[0], text, 'N', 1_000_000) };
    case '401':
    case '500':
    case '503':
      arity(1, 2);
      return {
        name: text,
        kind: 'status',
        status: Number(head) as 401 | 500 | 503,
        target: targetOf(rest[0], text),
        remaining:
          rest[1] === undefined ? Number.POSITIVE_INFINITY : positiveInteger(rest[1], text, 'COUNT', 1_000_000),
      };
    case 'slow':
      arity(2, 2);
      return {
        name: text,
        kind: 'slow',
        target: targetOf(rest[0], text),
        ms: positiveInteger(rest[1], text, 'MS', 600_000),
      };
    case 'payment-fails':
      if (rest.length > 0) throw new UsageError(`--fault ${text}: payment-fails takes no value`);
      return { name: text, kind: 'payment-fails' };
    default:
      throw new UsageError(
        `--fault ${text} is not a known fault; known: ${FAULT_LIST.map(([name]) => name).join(', ')}`,
      );
  }
}

function aimsAt(target: Target, operation: Operation): boolean {
  return target === operation || (target === 'any' && operation !== 'post-oauth');
}

/** What the faults make of one call: a status to answer instead, and a delay before answering. */
export interface FaultEffect {
  delayMs: number;
  answer?: { status: 401 | 500 | 503; fault: string };
}

/** The faults a service was started with, and what each has used up. */
export class FaultPlan {
  private readonly faults: Fault[];
  private readonly tokenUses = new Map<string, number>();

  constructor(faults: Fault[] = []) {
    // Each plan counts on its own: a fault parsed once and started twice starts afresh.
    this.faults = faults.map((fault) => ({ ...fault }));
  }

  get declinesPayments(): boolean {
    return this.faults.some((fault) => fault.kind === 'payment-fails');
  }

  /** Tokens that expire need tokens: with this fault the service checks them even when none was configured. */
  get tokenLifetime(): number | undefined {
    const expiring = this.faults.find((fault) => fault.kind === 'expire-tokens');
    return expiring?.kind === 'expire-tokens' ? expiring.requests : undefined;
  }

  /** Counts one call of an operation against the faults aimed at it. */
  effectOn(operation: Operation): FaultEffect {
    let delayMs = 0;
    let answer: FaultEffect['answer'];
    for (const fault of this.faults) {
      if (fault.kind === 'slow' && aimsAt(fault.target, operation)) delayMs = Math.max(delayMs, fault.ms);
      if (fault.kind === 'status' && !answer && fault.remaining > 0 && aimsAt(fault.target, operation)) {
        fault.remaining -= 1;
        answer = { status: fault.status, fault: fault.name };
      }
    }
    return answer ? { delayMs, answer } : { delayMs };
  }

  /** Applies the faults to one call: waits when it is to be slow, throws the error answer it is to get. */
  async apply(method: string, resource: string | undefined): Promise<void> {
    const operation = `${method.toLowerCase()}-${resource}` as Operation;
    if (!OPERATIONS.includes(operation)) return;
    const effect = this.effectOn(operation);
    // Unreferenced: a slow answer still pending never keeps a stopping service alive.
    if (effect.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, effect.delayMs).unref());
    if (!effect.answer) return;
    const { status, fault } = effect.answer;
    const headers: Record<string, string> =
      status === 401 ? { 'www-authenticate': 'Bearer' } : status === 503 ? { 'retry-after': '1' } : {};
    const message = status === 401 ? 'missing, expired or invalid access token' : 'the service failed to answer';
    throw new HttpError(status, message, [`Answered by the fault ${fault} this service was started with.`], headers);
  }

  /** Counts one use of a token; true once it has been used more than its lifetime allows. */
  tokenExpired(token: string): boolean {
    const lifetime = this.tokenLifetime;
    if (lifetime === undefined) return false;
    const uses = (this.tokenUses.get(token) ?? 0) + 1;
    this.tokenUses.set(token, uses);
    return uses > lifetime;
  }
}
