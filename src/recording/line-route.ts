// Where a recorded exchange goes, told from its request URL without parsing its line: the code at
// the end of the URL keeps every exchange of one checkout or upload with the same judge, in order
// (a GET is compared with the POST before it), and an order answer goes to every judge, which
// learns the URLs it gave.

const URL_MEMBER = /"url"\s*:\s*"([^"]*)"/;
const URL_NAME = Buffer.from('"url"');
const COLON = 0x3a;
const QUOTE = 0x22;

/**
 * The request URL of a recorded line given as bytes: the first "url" member's string. The proxy
 * writes `request` before `response`, so the first "url" is the request's; a line written
 * otherwise still goes to one judge, only its state may be split. The usual `"url":"…"` is read
 * from the bytes; any other spelling (spaces around the colon) from the text, as a whole line.
 */
export function requestUrlOfBytes(bytes: Buffer, start: number, end: number): string | undefined {
  const line = bytes.subarray(start, end);
  const at = line.indexOf(URL_NAME);
  if (at < 0) return undefined;
  const value = at + URL_NAME.length + 2;
  if (line[value - 2] === COLON && line[value - 1] === QUOTE) {
    const close = line.indexOf(QUOTE, value);
    if (close >= 0) return line.toString('utf8', value, close);
  }
  return requestUrlOfLine(line.toString('utf8'));
}

export function requestUrlOfLine(line: string): string | undefined {
  return URL_MEMBER.exec(line)?.[1];
}

/** POST orders or GET orders/{id}, by the URL's last segments: answers that give URLs. */
const ORDER_PATH = /\/orders(?:\/[^/?#]+)?\/?(?:[?#]|$)/i;

export function isOrderUrl(url: string): boolean {
  return ORDER_PATH.test(url);
}

/** The last segment of a URL's path: the checkout or upload code. */
export function partitionKeyOfUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** The partition key of a recorded line of text: the last path segment of its request URL. */
export function partitionKeyOfLine(line: string): string {
  const url = requestUrlOfLine(line);
  return url === undefined ? '' : partitionKeyOfUrl(url);
}

/** FNV-1a: a cheap, stable spread of keys over judges and shards. */
export function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
