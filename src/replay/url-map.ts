import type { OrderAnswer } from './order-answer.js';

// Which URL of the new service stands for a recorded one. Codes are opaque and belong to their
// order: a recorded checkout or upload URL is matched to the order answer that gave it, and stands
// for the URL the new order's answer gives at the same place. Order ids map the same way.

export type Mapped = { url: string } | { reason: string };

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

const lastSegment = (path: string) => path.split('/').filter(Boolean).at(-1) ?? '';

/** A path segment as its characters; one with a broken escape stays as written. */
function plainSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The URL with its last path segment replaced. */
function withLastSegment(url: string, segment: string): string {
  const parsed = new URL(url);
  parsed.pathname = parsed.pathname.replace(/[^/]+(\/?)$/, `${encodeURIComponent(segment)}$1`);
  return parsed.href;
}

/**
 * Whether a URL lies at the target's origin under its base path: the only place a replayed request
 * may go with the user's credentials. A recorded empty segment (`/v2//orders`) or dot segment would
 * otherwise resolve to another path, or to another host (`/v2///orders` reads as `//orders/`).
 */
export function underTarget(url: string, target: string): boolean {
  const parsed = parse(url);
  const base = parse(target);
  if (!parsed || !base) return false;
  if (parsed.origin !== base.origin || parsed.username !== '' || parsed.password !== '') return false;
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  if (!parsed.pathname.startsWith(prefix)) return false;
  // An empty segment below the base is a path the target's base never gave.
  const below = parsed.pathname.slice(prefix.length);
  return !below.startsWith('/') && !below.includes('//');
}

export class ReplayMap {
  /** Recorded URL path → the new URL given at the same place. */
  private readonly urls = new Map<string, string>();
  /** Recorded code → the new URL given at the same place. */
  private readonly codes = new Map<string, string>();
  private readonly orders = new Map<string, string>();
  /** Recorded URL path → why no new URL stands for it. */
  private readonly lost = new Map<string, string>();

  constructor(private readonly target: string) {}

  /**
   * Learns from a recorded order answer and the new one to the same request. `fresh` is undefined
   * when the new answer gave nothing (`why` says what it was).
   */
  learn(recorded: OrderAnswer | undefined, fresh: OrderAnswer | undefined, why: string): void {
    if (!recorded) return;
    if (recorded.id !== undefined && fresh?.id !== undefined) this.orders.set(recorded.id, fresh.id);
    for (const [place, url] of recorded.urls) {
      const path = parse(url)?.pathname;
      if (path === undefined) continue;
      const given = fresh?.urls.get(place);
      if (given !== undefined && parse(given)) {
        this.urls.set(path, given);
        this.codes.set(lastSegment(path), given);
        this.lost.delete(path);
      } else if (!this.urls.has(path))
        this.lost.set(
          path,
          fresh
            ? `the new order's answer gives no URL at ${place}, where the recorded one gave this URL`
            : `the order that gave its URL was not placed again: ${why}`,
        );
    }
  }

  /** The new URL for a recorded checkout/{code} or files/{code} URL. */
  interfaceUrl(recordedUrl: string, base: string | undefined): Mapped {
    const path = parse(recordedUrl)?.pathname ?? '';
    const given = this.urls.get(path);
    if (given !== undefined) return { url: given };
    const lost = this.lost.get(path);
    if (lost !== undefined) return { reason: lost };
    const code = plainSegment(lastSegment(path));
    // A client that altered a given code's case is replayed with the same alteration.
    for (const [recorded, url] of this.codes) {
      if (recorded.toLowerCase() !== code.toLowerCase()) continue;
      const fresh = lastSegment(new URL(url).pathname);
      if (code === recorded.toLowerCase()) return { url: withLastSegment(url, fresh.toLowerCase()) };
      if (code === recorded.toUpperCase()) return { url: withLastSegment(url, fresh.toUpperCase()) };
    }
    // A client that put the order's id where a code belongs is replayed with the new order's id.
    if (this.orders.has(code) && base) return this.rebased(recordedUrl, base);
    return {
      reason:
        'its URL was given by no order answer in the recording (an order placed before the recording began?): record the session from its POST orders',
    };
  }

  /** The new URL for POST orders or GET orders/{id}. */
  orderUrl(id: string | undefined, recordedUrl: string, base: string | undefined): Mapped {
    if (id !== undefined && !this.orders.has(id))
      return {
        reason: `order ${id} was not placed in the recording, so no new order stands for it: record the session from its POST orders`,
      };
    return base ? this.rebased(recordedUrl, base) : { reason: "the recorded service's base URL is not known" };
  }

  /**
   * The recorded URL under the target: its path below the recorded base, with recorded order ids
   * and codes replaced by the new ones (a client that builds URLs by hand is replayed as it built them).
   */
  rebased(recordedUrl: string, base: string): Mapped {
    const url = parse(recordedUrl);
    if (!url?.href.startsWith(base)) return { reason: "it is not under the recorded service's base URL" };
    const below = url.pathname.slice(new URL(base).pathname.length);
    if (below.startsWith('/') || below.includes('//'))
      return {
        reason: "its path holds an empty segment below the recorded base: it is not sent outside --target's base path",
      };
    const segments = below.split('/').map((segment) => {
      const plain = plainSegment(segment);
      const order = this.orders.get(plain);
      if (order !== undefined) return encodeURIComponent(order);
      const given = this.codes.get(plain);
      return given === undefined ? segment : lastSegment(new URL(given).pathname);
    });
    const target = new URL(segments.join('/'), this.target);
    target.search = url.search;
    // A segment that reads as `..` once resolved (`%2e%2e`) would climb out of the target's base.
    if (!underTarget(target.href, this.target))
      return { reason: "it would not be sent under --target's base URL (a dot or empty segment in its path)" };
    return { url: target.href };
  }
}
