// Absolute URLs in answers that point at the target are rewritten to the proxy, so a client that
// follows the checkout and upload URLs from the order endpoints stays behind the proxy. Only URLs
// that start with the target's base are touched; nothing else in a body changes.

/** A base as JSON may write it, its slashes escaped ("http:\/\/…"); the few bases a proxy has, kept. */
const escapedBases = new Map<string, string>();

function escaped(base: string): string {
  let spelt = escapedBases.get(base);
  if (spelt === undefined) {
    spelt = base.replaceAll('/', '\\/');
    if (escapedBases.size >= 64) escapedBases.clear();
    escapedBases.set(base, spelt);
  }
  return spelt;
}

export function rewriteTargetUrls(text: string, targetBase: string, proxyBase: string): string {
  const rewritten = text.replaceAll(targetBase, proxyBase);
  const escapedBase = escaped(targetBase);
  // JSON may escape its slashes: those URLs are rewritten in the same spelling.
  return rewritten.includes(escapedBase) ? rewritten.replaceAll(escapedBase, escaped(proxyBase)) : rewritten;
}

/** A Location header value, rewritten when it points at the target; CR/LF can never be introduced. */
export function rewriteLocation(value: string, targetBase: string, proxyBase: string): string {
  if (!value.startsWith(targetBase)) return value;
  return `${proxyBase}${value.slice(targetBase.length)}`.replace(/[\r\n]/g, '');
}

/**
 * Rewrites target URLs in an answer that streams through in pieces (too large to hold, or grown
 * past what may be held), as `rewriteTargetUrls` does in a whole one: the same two spellings of
 * the base, found across the pieces' edges. Bytes are searched, not text: the bases are ASCII, and
 * an ASCII run found in UTF-8 or an 8-bit encoding is those characters. What may be the start of
 * a base at a piece's end is kept back until the next piece, or the end, tells.
 */
export class StreamingUrlRewriter {
  private readonly from: Buffer[];
  private readonly to: Buffer[];
  private readonly keepBack: number;
  private carry: Buffer = Buffer.alloc(0);

  constructor(targetBase: string, proxyBase: string) {
    this.from = [Buffer.from(targetBase, 'latin1'), Buffer.from(escaped(targetBase), 'latin1')];
    this.to = [Buffer.from(proxyBase, 'latin1'), Buffer.from(escaped(proxyBase), 'latin1')];
    this.keepBack = Math.max(...this.from.map((base) => base.length)) - 1;
  }

  /** The bytes that can go out now, rewritten; possibly none. */
  push(chunk: Buffer): Buffer {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const { out, rest } = this.rewrite(bytes, false);
    this.carry = rest;
    return out;
  }

  /** What was kept back, at the answer's end. */
  end(): Buffer {
    const { out } = this.rewrite(this.carry, true);
    this.carry = Buffer.alloc(0);
    return out;
  }

  private rewrite(bytes: Buffer, last: boolean): { out: Buffer; rest: Buffer } {
    const pieces: Buffer[] = [];
    let at = 0;
    for (;;) {
      let found = -1;
      let which = 0;
      for (const [index, base] of this.from.entries()) {
        const position = bytes.indexOf(base, at);
        if (position !== -1 && (found === -1 || position < found)) {
          found = position;
          which = index;
        }
      }
      if (found === -1) break;
      pieces.push(bytes.subarray(at, found), this.to[which] as Buffer);
      at = found + (this.from[which] as Buffer).length;
    }
    // A base may begin in the last bytes and end in the next piece: those wait for it.
    const cut = last ? bytes.length : Math.max(at, bytes.length - this.keepBack);
    pieces.push(bytes.subarray(at, cut));
    const rest = Buffer.from(bytes.subarray(cut));
    return { out: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces), rest };
  }
}
