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
