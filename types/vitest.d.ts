// Types of print-conformance/vitest: matchers for vitest and jest that judge an exchange a test made.

/** An exchange in the shape the proxy records: headers lower-case, bodies as text or digests. */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: RecordedBody };
  response?: { status: number; headers: Record<string, string>; body?: RecordedBody };
}

export interface RecordedBody {
  text?: string;
  base64?: string;
  size: number;
  sha256?: string;
  headBase64?: string;
}

/** A rule the exchange broke, the side that broke it, and the place in the body (a JSON pointer). */
export interface Violation {
  rule: string;
  severity: 'must' | 'should' | 'observe';
  side: 'request' | 'response';
  message: string;
  path?: string;
}

export type ExchangeLike = { request: Request; response: Response } | Exchange;

export interface PairJudgement {
  judged: boolean;
  why?: string;
  violations: Violation[];
  exchange: Exchange;
}

/** Judges exchanges within one session: the URLs an order gave, a set-up before its GET. */
export class Judge {
  constructor(baseUrl?: string);
  judge(value: ExchangeLike): Promise<PairJudgement>;
}

export function exchangeOf(value: ExchangeLike): Promise<Exchange>;

export interface SpeakOptions {
  judge?: Judge;
  strict?: boolean;
  only?: readonly string[];
}

export const conformanceMatchers: {
  toSpeakTheInterface(
    received: ExchangeLike,
    options?: SpeakOptions,
  ): Promise<{ pass: boolean; message: () => string }>;
};

interface ConformanceMatchers<R = unknown> {
  /** Judges the exchange by the interface's rules; fails naming each rule broken and its place. */
  toSpeakTheInterface(options?: SpeakOptions): Promise<R>;
}

declare module 'vitest' {
  interface Assertion<T = any> extends ConformanceMatchers<T> {}
  interface AsymmetricMatchersContaining extends ConformanceMatchers {}
}
