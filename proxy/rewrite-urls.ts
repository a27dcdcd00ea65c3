// Absolute URLs in answers that point at the target are rewritten to the proxy, so a client that
// follows the checkout and upload URLs from the order endpoints stays behind the proxy. Only URLs
// that start with the target's base are touched; nothing else in a body changes.

export function rewriteTargetUrls(text: string, targetBase: string, proxyBase: string): string {
  const rewritten = text.replaceAll(targetBase, proxyBase);
  const escapedBase = targetBase.replaceAll('/', '\\/');
  // JSON may escape its slashes ("http:\/\/…"): those URLs are rewritten in the same spelling.
  return rewritten.includes(escapedBase)
    ? rewritten.replaceAll(escapedBase, proxyBase.replaceAll('/', '\\/'))
    : rewritten;
}

/** A Location header value, rewritten when it points at the target; CR/LF can never be introduced. */
export function rewriteLocation(value: string, targetBase: string, proxyBase: string): string {
  if (!value.startsWith(targetBase)) return value;
  return `${proxyBase}${value.slice(targetBase.length)}`.replace(/[\r\n]/g, '');
}
