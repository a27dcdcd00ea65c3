// What was worked out for texts that come again: a client polls for the same answer and sends the
// same set-up and header values, a recording holds them many times over, and each was read,
// judged and masked anew. A text is remembered as seen the first time and its value kept from the
// second: bodies that never come again (most answers hold codes of their own) then leave nothing
// behind but their text, where keeping what was made of each (an XML tree) cost the collector more
// than making it. Bounded: texts up to `longest` characters, 512 of them, forgotten together.

const TEXTS_KEPT = 512;
const SEEN_ONCE = Symbol('seen once');

/** Values of texts up to `longest` characters, kept once a text comes again. */
export class RecentTexts<V> {
  private readonly known = new Map<string, V | typeof SEEN_ONCE>();

  constructor(private readonly longest: number) {}

  /** The value worked out for this text, by `work` unless it was kept. */
  get(text: string, work: (text: string) => V): V {
    if (text.length > this.longest) return work(text);
    const known = this.known.get(text);
    if (known === undefined) {
      if (this.known.size >= TEXTS_KEPT) this.known.clear();
      this.known.set(text, SEEN_ONCE);
      return work(text);
    }
    if (known !== SEEN_ONCE) return known;
    const value = work(text);
    this.known.set(text, value);
    return value;
  }
}
