// What was worked out for texts seen a moment ago: a client polls for the same answer, sends the
// same header values, and a proxy reads, judges and masks each of them again for every exchange.
// A small table indexed by a few of a text's characters and its length, one text per slot: finding
// a text costs a dozen character reads and, when one is there, one comparison, never a hash of the
// whole text. Texts that never come again are simply overwritten, and held briefly: kept longer,
// they would outlive the young generation and cost the collector more than they save.

const SLOTS = 64;
/** Characters read to pick a slot, spread over the text. */
const SAMPLES = 8;

function slotOf(text: string): number {
  const length = text.length;
  let index = length;
  const step = Math.max(1, Math.floor(length / SAMPLES));
  for (let at = length - 1, taken = 0; at >= 0 && taken < SAMPLES; at -= step, taken += 1)
    index = (Math.imul(index, 31) + text.charCodeAt(at)) | 0;
  return (index ^ (index >>> 11)) & (SLOTS - 1);
}

/** Values of recently seen texts up to `longest` characters. */
export class RecentTexts<V> {
  private readonly texts: (string | undefined)[] = new Array(SLOTS).fill(undefined);
  private readonly values: (V | undefined)[] = new Array(SLOTS).fill(undefined);

  constructor(private readonly longest: number) {}

  /** The value worked out for this text, by `work` unless it was seen a moment ago. */
  get(text: string, work: (text: string) => V): V {
    if (text.length > this.longest) return work(text);
    const slot = slotOf(text);
    if (this.texts[slot] === text) return this.values[slot] as V;
    const value = work(text);
    this.texts[slot] = text;
    this.values[slot] = value;
    return value;
  }
}
