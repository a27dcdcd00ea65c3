import type { ExchangeDetail, Place, ShownMessage } from './exchange-detail.js';
import { escapeHtml, type PageContext, page, shownBytes } from './live-page.js';
import { DETAIL_SCRIPT } from './live-page-script.js';

// One exchange, opened: its findings with each rule's catalog text beside them, its heads, its
// bodies laid out for reading with the broken member itself highlighted (the body as sent a click
// away), its timings and sizes, and a curl line that sends it again through the proxy, so that the
// request sent again is judged again. A refused TLS handshake opens to what the proxy knows of it.

/** The text with the places that broke a rule marked. */
function marked(text: string, places: readonly Place[]): string {
  let html = '';
  let at = 0;
  for (const place of [...places].sort((a, b) => a.start - b.start)) {
    if (place.start < at) continue;
    html += escapeHtml(text.slice(at, place.start));
    html += `<mark title="${escapeHtml(place.rule)}">${escapeHtml(text.slice(place.start, place.end))}</mark>`;
    at = place.end;
  }
  return html + escapeHtml(text.slice(at));
}

function markedBody(message: ShownMessage): string {
  if (message.text === undefined) return message.note ? `<p class="muted">${escapeHtml(message.note)}</p>` : '';
  const note = message.note ? `<p class="muted">${escapeHtml(message.note)}</p>` : '';
  if (!message.pretty) return `<pre class="body">${marked(message.text, message.places)}</pre>${note}`;
  return `<pre class="body">${marked(message.pretty.text, message.pretty.places)}</pre>${note}
<details><summary>as sent</summary><pre class="sent">${marked(message.text, message.places)}</pre></details>`;
}

function heads(headers: Record<string, string>): string {
  return `<pre>${Object.entries(headers)
    .map(([name, value]) => `${escapeHtml(name)}: ${escapeHtml(value)}`)
    .join('\n')}</pre>`;
}

function findings(detail: ExchangeDetail): string {
  const items = detail.violations.map((v) => {
    const rule = detail.rules?.[v.rule];
    const text = rule
      ? `<p class="rule-text"><strong>${escapeHtml(rule.title)}</strong> ${escapeHtml(rule.description)}</p>`
      : '';
    return `<li class="${v.severity === 'observe' ? 'muted' : 'bad'}">${escapeHtml(v.rule)} (${escapeHtml(v.severity)}, ${escapeHtml(v.side)}${v.path ? ` at ${escapeHtml(v.path)}` : ''}): ${escapeHtml(v.message)}${text}</li>`;
  });
  return items.length > 0 ? `<ul>${items.join('')}</ul>` : '<p class="good">✓ none</p>';
}

function timings(detail: ExchangeDetail): string {
  const parts: string[] = [];
  if (detail.headMs !== undefined) parts.push(`answer's head after ${detail.headMs} ms`);
  if (detail.durationMs !== undefined) parts.push(`its end after ${detail.durationMs} ms`);
  parts.push(`request body ${shownBytes(detail.request.size)}`);
  if (detail.response) parts.push(`answer body ${shownBytes(detail.response.size)}`);
  return `<p id="timings">${parts.map(escapeHtml).join(' · ')}</p>`;
}

function refusedHandshake(detail: ExchangeDetail, context: PageContext): string {
  const refused = detail.refusedHandshake as NonNullable<ExchangeDetail['refusedHandshake']>;
  const content = `<p><a href="../${context.tokenQuery}">← all exchanges</a></p>
<h1>#${detail.seq} TLS handshake refused for ${escapeHtml(refused.host)}</h1>
<p class="bad">The client${refused.client ? ` at ${escapeHtml(refused.client)}` : ''} refused the proxy's certificate for ${escapeHtml(refused.host)}: ${escapeHtml(refused.reason)}.</p>
<p>No request came of it: the client does not trust the proxy's local CA. Run the client under <code>print-conformance proxy -- COMMAND</code>, or make its runtime trust the CA (<code>print-conformance ca</code>).</p>`;
  return page(`#${detail.seq} refused handshake — ${context.title}`, context.nonce, '', content);
}

/** One exchange, opened. */
export function detailPage(detail: ExchangeDetail, context: PageContext): string {
  if (detail.refusedHandshake) return refusedHandshake(detail, context);
  const response = detail.response
    ? `<h2>Answer ${escapeHtml(String(detail.status ?? ''))}</h2>${heads(detail.response.headers)}${markedBody(detail.response)}`
    : `<h2>No answer</h2><p>${escapeHtml(detail.error ?? '')}</p>`;
  const content = `<p><a href="../${context.tokenQuery}">← all exchanges</a></p>
<h1>#${detail.seq} ${escapeHtml(detail.method)} ${escapeHtml(detail.url)}</h1>
${timings(detail)}
${detail.test ? `<p>Test: ${escapeHtml(detail.test)}</p>` : ''}${detail.blocked ? '<p class="bad">Blocked by the proxy (enforce mode)</p>' : ''}
<h2>Findings</h2>${findings(detail)}
<h2>Request</h2>${heads(detail.request.headers)}${markedBody(detail.request)}
${response}
<h2>Send it again</h2><p class="muted">Through the proxy, so that it is judged again.</p><pre id="curl">${escapeHtml(detail.curl)}</pre><button id="copy" type="button" hidden>Copy</button>`;
  return page(`#${detail.seq} ${detail.method} — ${context.title}`, context.nonce, '', content, DETAIL_SCRIPT);
}
