import type { LineRef } from './types.js';

// What a replay found beside the verdicts: per recorded exchange, whether it could be sent again
// and where the new answer differs from the recorded one in what the interface documents.

/** One place where the new answer differs from the recorded one. */
export interface AnswerDifference {
  /** What differs: "status", "format", "answer", or a documented member as its format writes it. */
  member: string;
  /** As recorded and as answered now; absent for a member that is absent. */
  recorded?: string;
  replayed?: string;
}

export interface ReplayedExchange {
  at: LineRef;
  method: string;
  /** The URL as recorded (redacted). */
  recordedUrl: string;
  /** The URL it was sent to now, when it was sent. */
  url?: string;
  recordedStatus?: number;
  status?: number;
  /** Why it was not sent again. */
  notReplayed?: string;
  differences: AnswerDifference[];
}

export interface ReplaySummary {
  /** Recorded exchanges of the interface and order endpoints. */
  recorded: number;
  /** Of those, sent again. */
  replayed: number;
  notReplayed: number;
  /** Sent again, and the new answer differs where the interface cares. */
  differing: number;
  /** Recorded exchanges that are not the interface (never sent again). */
  notInterface: number;
  /** The exchanges not sent again and those whose answer differs, first ones first. */
  exchanges: ReplayedExchange[];
  /** Such exchanges beyond those listed. */
  moreExchanges: number;
}
