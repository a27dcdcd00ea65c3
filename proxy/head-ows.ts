// RFC 9110 §5.5: the optional white space after a field value is SP or HTAB alike. llhttp reads a
// tab there otherwise than a space on some fields: Node.js 20 refuses `Content-Length: 0<TAB>`, and
// every line reads `Transfer-Encoding: chunked<TAB>` as not chunked (refused in a request, a body
// to the end of the connection in an answer) while handing the value over without the tab. So
// before a head's bytes reach llhttp, each HTAB in the white space just before a line's CRLF
// becomes SP: the same length, so every offset llhttp gives stays right, and the value it hands
// over (without that white space) is the same. Only ever head bytes: the caller finds where a head
// ends (headEnd) and hands this no body byte.

const TAB = 0x09;
const SP = 0x20;
const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');

/** How much of "\r\n\r\n" the bytes so far end with, after one more byte (0 to 4). */
function endStep(matched: number, byte: number | undefined): number {
  if (byte === CR) return matched === 2 ? 3 : 1;
  if (byte === LF) return matched === 1 ? 2 : matched === 3 ? 4 : 0;
  return 0;
}

/**
 * Where the first "\r\n\r\n" at or after `from` ends (the index after it), given that the bytes
 * before `from` ended with `matched` bytes of it; -1 when it does not come in these bytes. A head
 * ends at its first empty line; llhttp skips empty lines before a request line, so an end found
 * early is only a point where the caller asks llhttp again, never a miss.
 */
export function headEnd(bytes: Buffer, from: number, matched: number): number {
  let state = matched;
  for (let index = from; state > 0 && index < bytes.length && index < from + 3; index += 1) {
    state = endStep(state, bytes[index]);
    if (state === 4) return index + 1;
  }
  const found = bytes.indexOf(HEAD_END, from);
  return found === -1 ? -1 : found + 4;
}

/** How much of "\r\n\r\n" the bytes up to `to` end with, given `matched` before `from` (0 to 3). */
export function endMatched(bytes: Buffer, from: number, to: number, matched: number): number {
  let state = to - from >= 3 ? 0 : matched;
  // After a whole "\r\n\r\n", its last "\r\n" can begin the next one.
  for (let index = Math.max(from, to - 3); index < to; index += 1)
    state = endStep(state === 4 ? 2 : state, bytes[index]);
  return state === 4 ? 2 : state;
}

/** A head's bytes with the tabs before its lines' CRLFs made spaces, and where an undecided run begins. */
export interface SpacedHead {
  /** The bytes to give llhttp: the head itself when nothing was changed, else a changed copy. */
  bytes: Buffer;
  /** The index in them of the first HTAB of a run the next bytes decide, or -1. */
  undecided: number;
}

/**
 * Each HTAB of the white space just before a CRLF made SP, in a copy (the caller's bytes are
 * never changed: they may be kept, or looked at after). An undecided run is one that reaches the
 * end of the head's bytes (or does with a CR after it): the next bytes say whether a CRLF ends
 * it. A tab anywhere else (inside a value, before a colon, before a bare CR) is left as it is,
 * for llhttp to read or refuse. Undefined when the bytes hold no tab (most heads).
 */
export function spaceTrailingTabs(head: Buffer): SpacedHead | undefined {
  let tab = head.indexOf(TAB);
  if (tab === -1) return undefined;
  const length = head.length;
  let bytes = head;
  while (tab !== -1) {
    let end = tab + 1;
    while (end < length && (head[end] === TAB || head[end] === SP)) end += 1;
    if (end === length || (head[end] === CR && end + 1 === length)) return { bytes, undecided: tab };
    if (head[end] === CR && head[end + 1] === LF) {
      if (bytes === head) bytes = Buffer.from(head);
      for (let index = tab; index < end; index += 1) bytes[index] = SP;
    }
    tab = head.indexOf(TAB, end);
  }
  return { bytes, undecided: -1 };
}
