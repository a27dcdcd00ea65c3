import type { AnswerDifference, ReplayedExchange, ReplaySummary } from '../findings/replay.js';
import type { LineRef } from '../findings/types.js';
import { redactText } from '../redaction/index.js';

// The account of a replay kept beside the verdicts: counts of what was sent again, and the
// exchanges worth reading (not sent again, or answered otherwise), the first ones in full.

/** Exchanges listed in full; later ones are counted. A long recording must not make a huge report. */
const LISTED = 200;

export class ReplayLog {
  private readonly summary: ReplaySummary = {
    recorded: 0,
    replayed: 0,
    notReplayed: 0,
    differing: 0,
    notInterface: 0,
    exchanges: [],
    moreExchanges: 0,
  };

  outside(): void {
    this.summary.notInterface += 1;
  }

  notReplayed(at: LineRef, method: string, recordedUrl: string, reason: string, recordedStatus?: number): void {
    this.summary.recorded += 1;
    this.summary.notReplayed += 1;
    this.list({
      at,
      method,
      recordedUrl,
      ...(recordedStatus === undefined ? {} : { recordedStatus }),
      notReplayed: reason,
      differences: [],
    });
  }

  replayed(entry: Omit<ReplayedExchange, 'notReplayed'>, differences: AnswerDifference[]): void {
    this.summary.recorded += 1;
    this.summary.replayed += 1;
    if (differences.length === 0) return;
    this.summary.differing += 1;
    this.list({ ...entry, differences });
  }

  get data(): ReplaySummary {
    return this.summary;
  }

  private list(entry: ReplayedExchange): void {
    // What a report shows never carries a secret a URL or an answer held.
    const shown: ReplayedExchange = {
      ...entry,
      recordedUrl: redactText(entry.recordedUrl),
      ...(entry.url === undefined ? {} : { url: redactText(entry.url) }),
      differences: entry.differences.map((difference) => ({
        member: difference.member,
        ...(difference.recorded === undefined ? {} : { recorded: redactText(difference.recorded) }),
        ...(difference.replayed === undefined ? {} : { replayed: redactText(difference.replayed) }),
      })),
    };
    if (this.summary.exchanges.length < LISTED) this.summary.exchanges.push(shown);
    else this.summary.moreExchanges += 1;
  }
}
