import { request } from 'undici';

// serve's webhooks, as the real service calls a shop's: after an order's or a payment's status
// changes, `POST <url>` with the form body `orderId=<id>` and nothing else (the shop reads the
// status itself). A call runs on its own: it never delays or fails the answer that caused it. An
// answer other than 2xx, or none in time, is tried again after 1, 2, 4 … s, five tries in all;
// each try is one log line, and every call stays listed for the control API and the live page.
// A URL's user and password (`https://shop:secret@…/webhook`) are sent as Basic credentials, as
// a receiver behind them expects, and never shown: the lines and the list name the URL without
// its password.

export interface WebhookTry {
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why there was no answer (refused, timed out), when it did not. */
  error?: string;
  durationMs: number;
}

export interface WebhookCall {
  orderId: string;
  /** The URL as shown: its password, if it had one, replaced. */
  url: string;
  tries: WebhookTry[];
}

/** Where a webhook goes: the URL without its credentials, those as a header, and the URL as shown. */
interface WebhookTarget {
  sendTo: string;
  authorization?: string;
  shown: string;
}

function webhookTarget(given: string): WebhookTarget {
  const url = new URL(given);
  if (url.username === '' && url.password === '') return { sendTo: given, shown: given };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const sendTo = url.href;
  url.username = encodeURIComponent(user);
  if (password !== '') url.password = '[Filtered]';
  return {
    sendTo,
    authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
    shown: url.href.replace('%5BFiltered%5D', '[Filtered]'),
  };
}

/** One try, as a log event and the webhook metric tell it: `delivered` is a 2xx answer. */
export interface WebhookTried {
  url: string;
  try: number;
  of: number;
  outcome: 'delivered' | 'refused' | 'no answer';
  status?: number;
  durationMs: number;
}

export interface WebhookOptions {
  urls: readonly string[];
  /** How long a try waits for an answer (10 s). */
  timeoutMs?: number;
  /** The waits before the second, third … try (1, 2, 4, 8 s: five tries). */
  retryDelaysMs?: readonly number[];
  /** Where each try's line goes (serve: stderr), with the try's facts for a log event and a metric. */
  log?: (line: string, tried?: WebhookTried) => void;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_RETRY_DELAYS_MS = [1000, 2000, 4000, 8000] as const;
/** Calls listed; past it the oldest go (a session this long is long done with them). */
const CALLS_KEPT = 1000;

export class Webhooks {
  private readonly kept: WebhookCall[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private closed = false;

  private readonly targets: WebhookTarget[];

  constructor(private readonly options: WebhookOptions) {
    this.targets = options.urls.map(webhookTarget);
  }

  get enabled(): boolean {
    return this.options.urls.length > 0;
  }

  /** Every call so far, oldest first, with its tries. */
  calls(): WebhookCall[] {
    return this.kept;
  }

  /** An order's (or its payment's) status changed: every webhook URL is called, in the background. */
  notify(orderId: string): void {
    if (this.closed) return;
    for (const target of this.targets) {
      const call: WebhookCall = { orderId, url: target.shown, tries: [] };
      this.kept.push(call);
      if (this.kept.length > CALLS_KEPT) this.kept.shift();
      const running = this.deliver(call, target).catch(() => undefined);
      this.running.add(running);
      running.finally(() => this.running.delete(running));
    }
  }

  /** Every call still under way, done (a test waits for it; close ends them). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Stops every try under way and every wait for a next one. */
  async close(): Promise<void> {
    this.closed = true;
    for (const abort of this.aborts) abort.abort();
    await this.settled();
  }

  private async deliver(call: WebhookCall, target: WebhookTarget): Promise<void> {
    const delays = this.options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
    const tries = delays.length + 1;
    for (let index = 0; index < tries && !this.closed; index += 1) {
      if (index > 0 && !(await this.wait(delays[index - 1] as number))) return;
      const done = await this.attempt(call, target);
      call.tries.push(done);
      const last = index === tries - 1;
      const ok = done.status !== undefined && done.status >= 200 && done.status < 300;
      const outcome = done.status !== undefined ? `${done.status}` : done.error;
      const next = ok ? '' : last ? '; giving up' : `; next try in ${(delays[index] as number) / 1000} s`;
      this.options.log?.(
        `webhook POST ${call.url} orderId=${call.orderId}: try ${index + 1} of ${tries}: ${outcome} in ${done.durationMs} ms${next}`,
        {
          url: call.url,
          try: index + 1,
          of: tries,
          outcome: ok ? 'delivered' : done.status !== undefined ? 'refused' : 'no answer',
          ...(done.status !== undefined ? { status: done.status } : {}),
          durationMs: done.durationMs,
        },
      );
      if (ok) return;
    }
  }

  private async attempt(call: WebhookCall, target: WebhookTarget): Promise<WebhookTry> {
    const timeoutMs = this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const started = performance.now();
    try {
      const answer = await request(target.sendTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(target.authorization ? { authorization: target.authorization } : {}),
        },
        body: new URLSearchParams({ orderId: call.orderId }).toString(),
        signal: abort.signal,
      });
      await answer.body.dump();
      return { status: answer.statusCode, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      const reason = abort.signal.aborted ? abort.signal.reason : error;
      const message = reason instanceof Error ? reason.message : String(reason);
      return { error: message, durationMs: Math.round(performance.now() - started) };
    } finally {
      clearTimeout(timer);
      this.aborts.delete(abort);
    }
  }

  /** Waits `ms`; false when the service closes meanwhile. */
  private wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const abort = new AbortController();
      this.aborts.add(abort);
      const timer = setTimeout(() => {
        this.aborts.delete(abort);
        resolve(true);
      }, ms);
      abort.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        this.aborts.delete(abort);
        resolve(false);
      });
    });
  }
}
