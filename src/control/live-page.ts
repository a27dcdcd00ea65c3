import { escapeXml } from '../contract/xml-writer.js';
import type { ExchangeDetail, ShownMessage } from './exchange-detail.js';
import type { FeedEntry } from './exchange-feed.js';

// The live page: the exchanges as they arrive, each with its marks and rule IDs, filterable by
// rule, status and test; an exchange opens to its heads and bodies with the places that broke a
// rule highlighted, and its curl command. Served whole from the proxy's (or serve's) own port: no
// outside resource, the list rendered on the server so that it reads without JavaScript, and a
// small script that adds what arrives after (an event stream) and filters in place. Traffic is
// inert text on it: every value is escaped, and the page's policy runs no script but its own.

export interface ListFilters {
  rule?: string;
  /** "2xx", "4xx", "5xx", "broken", "clean" or "" for all. */
  status?: string;
  test?: string;
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

const SHOWN_ROWS = 500;

/** Markup characters, quotes included, as references: traffic on the page is text, in elements and attributes alike. */
const escapeHtml = escapeXml;

export function matches(entry: FeedEntry, filters: ListFilters): boolean {
  if (filters.rule && !entry.violations.some((v) => v.rule.startsWith(filters.rule as string))) return false;
  if (filters.test && entry.test !== filters.test) return false;
  const status = filters.status ?? '';
  if (status === 'broken') return entry.violations.some((v) => v.severity !== 'observe');
  if (status === 'clean') return !entry.violations.some((v) => v.severity !== 'observe');
  if (/^[1-5]xx$/.test(status)) return String(entry.status ?? '').startsWith(status[0] as string);
  return true;
}

/** The marks of a row: what broke, or that nothing did. */
function marks(entry: FeedEntry): string {
  const broken = [...new Set(entry.violations.filter((v) => v.severity !== 'observe').map((v) => v.rule))];
  if (broken.length > 0) return `<span class="bad">✗ ${broken.map(escapeHtml).join(' ')}</span>`;
  return entry.judged ? '<span class="good">✓</span>' : '<span class="muted">not judged</span>';
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
  const status = entry.status ?? (entry.error ? 'no answer' : '');
  return `<tr data-seq="${entry.seq}" data-entry="${escapeHtml(JSON.stringify(entry))}"><td>${entry.seq}</td><td>${escapeHtml(entry.at.slice(11, 23))}</td><td>${escapeHtml(entry.method)}</td><td><a href="exchanges/${entry.seq}${tokenQuery}">${escapeHtml(path)}</a></td><td>${escapeHtml(String(status))}</td><td>${escapeHtml(entry.test ?? '')}</td><td>${marks(entry)}</td></tr>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem 1.5rem; color: #1d2430; }
h1 { font-size: 1.2rem; margin: 0 0 .5rem; }
form { margin: .5rem 0 1rem; display: flex; gap: .75rem; flex-wrap: wrap; align-items: end; }
select { max-width: 18rem; }
label { display: flex; flex-direction: column; font-size: .8rem; color: #556; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
td:nth-child(4) { word-break: break-all; }
.bad { color: #b3261e; font-weight: 600; } .good { color: #1e7b34; } .muted { color: #889; }
pre { background: #f5f6f8; padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
mark { background: #ffd54f; outline: 2px solid #b3261e; }
#state { font-size: .8rem; color: #667; }
`;

const SCRIPT = `
(() => {
  const body = document.querySelector('tbody');
  const form = document.querySelector('form');
  const state = document.getElementById('state');
  const token = document.body.dataset.token;
  let last = Number(document.body.dataset.last);
  const MAX = ${SHOWN_ROWS};
  const pending = [];
  const filters = () => Object.fromEntries(new FormData(form));
  const matches = (e, f) => {
    if (f.rule && !e.violations.some((v) => v.rule.startsWith(f.rule))) return false;
    if (f.test && e.test !== f.test) return false;
    const broken = e.violations.some((v) => v.severity !== 'observe');
    if (f.status === 'broken') return broken;
    if (f.status === 'clean') return !broken;
    if (/^[1-5]xx$/.test(f.status || '')) return String(e.status ?? '').startsWith(f.status[0]);
    return true;
  };
  const cell = (tr, text, cls) => { const td = tr.insertCell(); td.textContent = text; if (cls) td.className = cls; return td; };
  const render = (e) => {
    const tr = document.createElement('tr');
    tr.dataset.seq = e.seq;
    tr.dataset.entry = JSON.stringify(e);
    cell(tr, String(e.seq)); cell(tr, e.at.slice(11, 23)); cell(tr, e.method);
    const link = document.createElement('a');
    let where = e.url; try { const u = new URL(e.url); where = u.host + u.pathname; } catch {}
    link.textContent = where; link.href = 'exchanges/' + e.seq + token;
    tr.insertCell().append(link);
    cell(tr, String(e.status ?? (e.error ? 'no answer' : ''))); cell(tr, e.test ?? '');
    const broken = [...new Set(e.violations.filter((v) => v.severity !== 'observe').map((v) => v.rule))];
    if (broken.length) cell(tr, '✗ ' + broken.join(' '), 'bad');
    else cell(tr, e.judged ? '✓' : 'not judged', e.judged ? 'good' : 'muted');
    tr.hidden = !matches(e, filters());
    return tr;
  };
  const flush = () => {
    const batch = pending.splice(0);
    const fragment = document.createDocumentFragment();
    for (const e of batch.slice(-MAX).reverse()) fragment.append(render(e));
    body.prepend(fragment);
    while (body.rows.length > MAX) body.deleteRow(-1);
    state.textContent = 'live: ' + last + ' exchanges so far';
  };
  const stream = new EventSource('api/events?after=' + last + token.replace('?', '&'));
  stream.addEventListener('exchange', (event) => {
    const e = JSON.parse(event.data);
    if (e.seq <= last) return;
    last = e.seq;
    if (pending.push(e) === 1) requestAnimationFrame(flush);
  });
  stream.onerror = () => { state.textContent = 'the stream broke off; it reconnects by itself'; };
  form.addEventListener('input', () => {
    const f = filters();
    for (const tr of body.rows) tr.hidden = !matches(JSON.parse(tr.dataset.entry), f);
    const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
    history.replaceState(null, '', '?' + query);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
})();
`;

function page(title: string, nonce: string, bodyAttributes: string, content: string, script: boolean): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${STYLE}</style></head>
<body ${bodyAttributes}>${content}${script ? `<script nonce="${nonce}">${SCRIPT}</script>` : ''}</body></html>
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

/** The list: the window's exchanges that match, newest first, with the filters that chose them. */
export function listPage(
  entries: FeedEntry[],
  filters: ListFilters,
  context: PageContext & { rules: string[]; tests: string[]; last: number },
): string {
  const shown = entries.filter((entry) => matches(entry, filters)).slice(0, SHOWN_ROWS);
  const statuses = ['2xx', '3xx', '4xx', '5xx', 'broken', 'clean'];
  const content = `<h1>${escapeHtml(context.title)}</h1>
<form method="get">
<label>Rule<select name="rule">${options(context.rules, filters.rule, 'any rule')}</select></label>
<label>Status<select name="status">${options(statuses, filters.status, 'any status')}</select></label>
<label>Test<select name="test">${options(context.tests, filters.test, 'any test')}</select></label>
<noscript><button>Filter</button></noscript>
</form>
<p id="state">${context.last} exchanges so far${shown.length < entries.length ? `; ${shown.length} shown` : ''}</p>
<table><thead><tr><th>#</th><th>Time</th><th>Method</th><th>URL</th><th>Status</th><th>Test</th><th>Verdict</th></tr></thead>
<tbody>${shown.map((entry) => row(entry, context.tokenQuery)).join('')}</tbody></table>`;
  const attributes = `data-last="${context.last}" data-token="${escapeHtml(context.tokenQuery)}"`;
  return page(context.title, context.nonce, attributes, content, true);
}

/** A body's text with the places that broke a rule marked. */
function markedBody(message: ShownMessage): string {
  if (message.text === undefined) return message.note ? `<p class="muted">${escapeHtml(message.note)}</p>` : '';
  const text = message.text;
  const places = [...message.places].sort((a, b) => a.start - b.start);
  let html = '';
  let at = 0;
  for (const place of places) {
    if (place.start < at) continue;
    html += escapeHtml(text.slice(at, place.start));
    html += `<mark title="${escapeHtml(place.rule)}">${escapeHtml(text.slice(place.start, place.end))}</mark>`;
    at = place.end;
  }
  html += escapeHtml(text.slice(at));
  const note = message.note ? `<p class="muted">${escapeHtml(message.note)}</p>` : '';
  return `<pre class="body">${html}</pre>${note}`;
}

function heads(headers: Record<string, string>): string {
  return `<pre>${Object.entries(headers)
    .map(([name, value]) => `${escapeHtml(name)}: ${escapeHtml(value)}`)
    .join('\n')}</pre>`;
}

/** One exchange, opened. */
export function detailPage(detail: ExchangeDetail, context: PageContext): string {
  const findings = detail.violations
    .map(
      (v) =>
        `<li class="${v.severity === 'observe' ? 'muted' : 'bad'}">${escapeHtml(v.rule)} (${escapeHtml(v.severity)}, ${escapeHtml(v.side)}${v.path ? ` at ${escapeHtml(v.path)}` : ''}): ${escapeHtml(v.message)}</li>`,
    )
    .join('');
  const response = detail.response
    ? `<h2>Answer ${escapeHtml(String(detail.status ?? ''))}</h2>${heads(detail.response.headers)}${markedBody(detail.response)}`
    : `<h2>No answer</h2><p>${escapeHtml(detail.error ?? '')}</p>`;
  const content = `<p><a href="../${context.tokenQuery}">← all exchanges</a></p>
<h1>#${detail.seq} ${escapeHtml(detail.method)} ${escapeHtml(detail.url)}</h1>
${detail.test ? `<p>Test: ${escapeHtml(detail.test)}</p>` : ''}${detail.blocked ? '<p class="bad">Blocked by the proxy (enforce mode)</p>' : ''}
<h2>Findings</h2>${findings ? `<ul>${findings}</ul>` : '<p class="good">✓ none</p>'}
<h2>Request</h2>${heads(detail.request.headers)}${markedBody(detail.request)}
${response}
<h2>Send it again</h2><pre>${escapeHtml(detail.curl)}</pre>`;
  return page(`#${detail.seq} ${detail.method} — ${context.title}`, context.nonce, '', content, false);
}
