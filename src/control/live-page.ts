import { escapeXml } from '../contract/xml-writer.js';
import type { ClientTestVerdict, ClientVerdict } from '../findings/types.js';
import type { FeedEntry, FeedItem } from './exchange-feed.js';
import { listScript } from './live-page-script.js';
import { STYLE } from './live-page-style.js';

// The live page: the exchanges as they arrive, each with its marks and rule IDs, its durations and
// body sizes, filterable by rule, status and test and searchable as text; at the top the session's
// verdict so far and each client test's pass or fail, as the control API tallies them. An exchange
// opens to its heads and bodies with the places that broke a rule highlighted (live-page-detail.ts).
// Served whole from the proxy's (or serve's) own port: no outside resource, the list rendered on
// the server so that it reads without JavaScript, and a small script that adds what arrives after
// (an event stream) and filters in place. Traffic is inert text on it: every value is escaped,
// and the page's policy runs no script but its own.

export interface ListFilters {
  rule?: string;
  /** "2xx", "4xx", "5xx", "broken", "clean" or "" for all. */
  status?: string;
  test?: string;
  /** The client team (--clients-by). */
  client?: string;
  /** Text the URL, a header or a (redacted) body holds, in any case. */
  q?: string;
}

/** One webhook call of serve, with its tries, as the page lists it. */
export interface WebhookCallShown {
  orderId: string;
  url: string;
  tries: readonly { status?: number; error?: string; durationMs: number }[];
}

export interface PageContext {
  title: string;
  /** Appended to the page's own links and stream, when the control API wants a token. */
  tokenQuery: string;
  nonce: string;
}

/** The verdict so far as results.json counts it (the control API's api/verdicts). */
export interface VerdictSummary {
  passed: number;
  failed: number;
  /** should rules that failed (results.json counts them apart from failed). */
  warnings?: number;
  untested: number;
  skipped: number;
}

const SHOWN_ROWS = 500;

/** Markup characters, quotes included, as references: traffic on the page is text, in elements and attributes alike. */
export const escapeHtml = escapeXml;

/** Whether an exchange's URL, heads or bodies (as the window holds them, redacted) hold the text. */
export function holdsText(item: FeedItem, query: string): boolean {
  const wanted = query.toLowerCase();
  const has = (text: string | undefined) => text?.toLowerCase().includes(wanted) === true;
  const { request, response } = item.exchange;
  if (has(request.url) || has(item.entry.error)) return true;
  for (const message of [request, response]) {
    if (!message) continue;
    for (const [name, value] of Object.entries(message.headers)) if (has(`${name}: ${value}`)) return true;
    if (has(message.body?.text)) return true;
  }
  return false;
}

export function matches(entry: FeedEntry, filters: ListFilters): boolean {
  if (filters.rule && !entry.violations.some((v) => v.rule.startsWith(filters.rule as string))) return false;
  if (filters.test && entry.test !== filters.test) return false;
  if (filters.client && entry.client !== filters.client) return false;
  const status = filters.status ?? '';
  if (status === 'broken') return entry.violations.some((v) => v.severity !== 'observe');
  if (status === 'clean') return !entry.violations.some((v) => v.severity !== 'observe');
  if (/^[1-5]xx$/.test(status)) return String(entry.status ?? '').startsWith(status[0] as string);
  return true;
}

/** A size as the list shows it: bytes up to 9999, then kB and MB. */
export function shownBytes(size: number | undefined): string {
  if (size === undefined) return '';
  if (size < 10_000) return `${size} B`;
  if (size < 10_000_000) return `${(size / 1000).toFixed(1)} kB`;
  return `${(size / 1_000_000).toFixed(1)} MB`;
}

/** The marks of a row: what broke, or that nothing did. */
function marks(entry: FeedEntry): string {
  const broken = [...new Set(entry.violations.filter((v) => v.severity !== 'observe').map((v) => v.rule))];
  if (broken.length > 0) return `<td class="verdict bad">✗ ${broken.map(escapeHtml).join(' ')}</td>`;
  return entry.judged ? '<td class="verdict good">✓</td>' : '<td class="verdict muted">not judged</td>';
}

function row(entry: FeedEntry, tokenQuery: string): string {
  const path = (() => {
    try {
      const url = new URL(entry.url);
      return `${url.host}${url.pathname}`;
    } catch {
      return entry.url;
    }
  })();
  const head = `<tr data-seq="${entry.seq}" data-entry="${escapeHtml(JSON.stringify(entry))}"${entry.refusedHandshake ? ' class="refused"' : ''}><td class="num">${entry.seq}</td><td class="num">${escapeHtml(entry.at.slice(11, 23))}</td><td>${escapeHtml(entry.method)}</td><td class="url"><a href="exchanges/${entry.seq}${tokenQuery}">${escapeHtml(path)}</a></td>`;
  if (entry.refusedHandshake)
    return `${head}<td>refused</td><td>${escapeHtml(entry.test ?? '')}</td><td class="num"></td><td class="num"></td><td class="verdict bad">✗ TLS handshake refused: ${escapeHtml(entry.refusedHandshake.reason)}</td></tr>`;
  const status = entry.status ?? (entry.error ? 'no answer' : '');
  const duration = entry.durationMs === undefined ? '' : `${entry.headMs ?? '–'} / ${entry.durationMs} ms`;
  const size = `↑ ${shownBytes(entry.requestBytes)}${entry.responseBytes === undefined ? '' : ` ↓ ${shownBytes(entry.responseBytes)}`}`;
  return `${head}<td>${escapeHtml(String(status))}</td><td>${escapeHtml(entry.test ?? '')}</td><td class="num" title="to the answer's head / to its end">${duration}</td><td class="num">${size}</td>${marks(entry)}</tr>`;
}

export function page(title: string, nonce: string, bodyAttributes: string, content: string, script?: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${STYLE}</style></head>
<body ${bodyAttributes}>${content}${script ? `<script nonce="${nonce}">${script}</script>` : ''}</body></html>
`;
}

function options(values: readonly string[], selected: string | undefined, all: string): string {
  return [`<option value="">${escapeHtml(all)}</option>`]
    .concat(
      values.map(
        (value) =>
          `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(value)}</option>`,
      ),
    )
    .join('');
}

/** The verdict so far, in words and counts: what api/verdicts says, never counted here. */
export function verdictLine(summary: VerdictSummary | undefined): string {
  if (!summary) return '';
  const [word, style] =
    summary.failed > 0
      ? ['failed', 'bad']
      : summary.untested > 0
        ? ['untested', 'warn']
        : summary.passed > 0
          ? ['passed', 'good']
          : ['nothing judged yet', 'muted'];
  return `Verdict so far: <strong class="${style}">${word}</strong> — ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings ?? 0} warnings, ${summary.untested} untested, ${summary.skipped} skipped`;
}

/** A test that sent no exchange of the interface has shown nothing: it neither passes nor fails. */
function testItem(test: ClientTestVerdict): string {
  const name = escapeHtml(test.name);
  if (test.judged === 0)
    return `<li class="muted" data-test="${name}">· ${name} (${test.exchanges}): no exchange of the interface</li>`;
  const failed = test.passed ? '' : `: ${test.failed.map((failure) => escapeHtml(failure.rule)).join(' ')}`;
  return `<li class="${test.passed ? 'good' : 'bad'}" data-test="${name}">${test.passed ? '✓' : '✗'} ${name} (${test.exchanges})${failed}</li>`;
}

function testItems(tests: readonly ClientTestVerdict[]): string {
  return tests.map(testItem).join('');
}

/** A client team's pass or fail so far, as api/clients tells it; one with nothing judged neither passes nor fails. */
function clientItem(verdict: ClientVerdict): string {
  const id = escapeHtml(verdict.client);
  if (verdict.judged === 0)
    return `<li class="muted" data-client="${id}">· client ${id} (${verdict.exchanges}): no exchange of the interface</li>`;
  const failed = verdict.passed ? '' : `: ${verdict.failed.map((failure) => escapeHtml(failure.rule)).join(' ')}`;
  return `<li class="${verdict.passed ? 'good' : 'bad'}" data-client="${id}">${verdict.passed ? '✓' : '✗'} client ${id} (${verdict.exchanges})${failed}</li>`;
}

function webhookRows(calls: readonly WebhookCallShown[]): string {
  return calls
    .slice(-50)
    .reverse()
    .map(
      (call) =>
        `<tr><td>${escapeHtml(call.orderId)}</td><td class="url">${escapeHtml(call.url)}</td><td>${
          call.tries.map((t) => `${escapeHtml(String(t.status ?? t.error))} (${t.durationMs} ms)`).join(', ') ||
          'under way'
        }</td></tr>`,
    )
    .join('');
}

/** The list: the window's exchanges that match, newest first, with the filters that chose them. */
export function listPage(
  items: readonly FeedItem[],
  filters: ListFilters,
  context: PageContext & {
    rules: string[];
    tests: readonly ClientTestVerdict[];
    /** --clients-by: each client team's verdict so far (absent: clients are not told apart). */
    clients?: readonly ClientVerdict[];
    last: number;
    verdict?: VerdictSummary;
    webhooks?: readonly WebhookCallShown[];
  },
): string {
  const query = filters.q?.trim();
  const shown: FeedEntry[] = [];
  for (let index = items.length - 1; index >= 0 && shown.length < SHOWN_ROWS; index -= 1) {
    const item = items[index] as FeedItem;
    if (matches(item.entry, filters) && (!query || holdsText(item, query))) shown.push(item.entry);
  }
  const statuses = ['2xx', '3xx', '4xx', '5xx', 'broken', 'clean'];
  const token = context.tokenQuery;
  const webhooks = context.webhooks
    ? `<section id="webhooks"><h2>Webhooks</h2><table><thead><tr><th>Order</th><th>URL</th><th>Tries</th></tr></thead><tbody>${webhookRows(context.webhooks)}</tbody></table></section>`
    : '';
  const content = `<h1>${escapeHtml(context.title)}</h1>
<p id="verdict">${verdictLine(context.verdict)}</p>
<ul id="tests">${testItems(context.tests)}</ul>
${context.clients ? `<ul id="clients">${context.clients.map(clientItem).join('')}</ul>` : ''}
<form method="get">
<label>Rule<select name="rule">${options(context.rules, filters.rule, 'any rule')}</select></label>
<label>Status<select name="status">${options(statuses, filters.status, 'any status')}</select></label>
<label>Test<select name="test">${options(
    context.tests.map((t) => t.name),
    filters.test,
    'any test',
  )}</select></label>${
    context.clients
      ? `
<label>Client<select name="client">${options(
          context.clients.map((c) => c.client),
          filters.client,
          'any client',
        )}</select></label>`
      : ''
  }
<label>Search<input type="search" name="q" value="${escapeHtml(filters.q ?? '')}" placeholder="URL, header or body text"></label>
<noscript><button>Filter</button></noscript>
</form>
<p><span id="state">${context.last} exchanges so far${shown.length < items.length ? `; ${shown.length} shown` : ''}</span> · <a id="har" href="api/har${token}" download="print-conformance.har">Download the window as HAR</a></p>
<table id="exchanges"><thead><tr><th>#</th><th>Time</th><th>Method</th><th>URL</th><th>Status</th><th>Test</th><th title="to the answer's head / to its end">Duration</th><th title="request ↑, answer ↓">Size</th><th>Verdict</th></tr></thead>
<tbody>${shown.map((entry) => row(entry, token)).join('')}</tbody></table>
${webhooks}`;
  const attributes = `data-last="${context.last}" data-token="${escapeHtml(token)}"`;
  return page(context.title, context.nonce, attributes, content, listScript(SHOWN_ROWS));
}
