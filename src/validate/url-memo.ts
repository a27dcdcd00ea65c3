// What was read from request URLs, kept per URL: a client asks for the same few URLs again and
// again (it polls). Bounded both ways: 4096 URLs, forgotten together, and none longer than 2 KiB
// (the interface's URLs are a tenth of that), so that a client sending long URLs cannot make the
// proxy keep megabytes of them.

const URLS_KEPT = 4096;
const LONGEST_KEPT = 2048;

/** `read`, with its answers kept for URLs that come again. */
export function perUrl<V>(read: (url: string) => V): (url: string) => V {
  const known = new Map<string, V>();
  return (url) => {
    if (url.length > LONGEST_KEPT) return read(url);
    let value = known.get(url);
    if (value === undefined && !known.has(url)) {
      value = read(url);
      if (known.size >= URLS_KEPT) known.clear();
      known.set(url, value);
    }
    return value as V;
  };
}
