// The list's script: what arrives after the page was served (an event stream), filters and the
// text search applied in place, new rules and tests added to the filters as they appear, and the
// verdict so far and each client test's pass or fail read again from the control API (the one
// tally) while exchanges come. Everything from traffic is set as text, never as markup.

export function listScript(shownRows: number): string {
  return `
(() => {
  const body = document.querySelector('#exchanges tbody');
  const form = document.querySelector('form');
  const state = document.getElementById('state');
  const token = document.body.dataset.token;
  const api = (path, query) => path + (query ? '?' + query : '') + (token ? (query ? '&' : '?') + token.slice(1) : '');
  let last = Number(document.body.dataset.last);
  const MAX = ${shownRows};
  const pending = [];
  let found = null;
  const filters = () => Object.fromEntries(new FormData(form));
  const matches = (e, f) => {
    if (f.rule && !e.violations.some((v) => v.rule.startsWith(f.rule))) return false;
    if (f.test && e.test !== f.test) return false;
    if (f.client && e.client !== f.client) return false;
    if (f.q && found && !found.has(e.seq)) return false;
    const broken = e.violations.some((v) => v.severity !== 'observe');
    if (f.status === 'broken') return broken;
    if (f.status === 'clean') return !broken;
    if (/^[1-5]xx$/.test(f.status || '')) return String(e.status ?? '').startsWith(f.status[0]);
    return true;
  };
  const bytes = (n) => n === undefined ? '' : n < 10000 ? n + ' B' : n < 10000000 ? (n / 1000).toFixed(1) + ' kB' : (n / 1000000).toFixed(1) + ' MB';
  const cell = (tr, text, cls) => { const td = tr.insertCell(); td.textContent = text; if (cls) td.className = cls; return td; };
  const addOption = (name, value) => {
    const select = form.elements[name];
    if (!select || !value || [...select.options].some((o) => o.value === value)) return;
    const option = new Option(value, value);
    const after = [...select.options].slice(1).find((o) => name === 'rule' && o.value > value);
    select.add(option, after ?? null);
  };
  // A client test's or a client team's verdict as a line of its list, and its name in the filter.
  const verdictItem = (v, filter, name, label) => {
    const li = document.createElement('li');
    const shown = v.judged > 0;
    li.className = !shown ? 'muted' : v.passed ? 'good' : 'bad';
    li.dataset[filter] = name;
    li.textContent = !shown
      ? '· ' + label + name + ' (' + v.exchanges + '): no exchange of the interface'
      : (v.passed ? '✓ ' : '✗ ') + label + name + ' (' + v.exchanges + ')' + (v.passed ? '' : ': ' + v.failed.map((r) => r.rule).join(' '));
    addOption(filter, name);
    return li;
  };
  const render = (e) => {
    const tr = document.createElement('tr');
    tr.dataset.seq = e.seq;
    tr.dataset.entry = JSON.stringify(e);
    cell(tr, String(e.seq), 'num'); cell(tr, e.at.slice(11, 23), 'num'); cell(tr, e.method);
    const link = document.createElement('a');
    let where = e.url; try { const u = new URL(e.url); where = u.host + u.pathname; } catch {}
    link.textContent = where; link.href = 'exchanges/' + e.seq + token;
    const url = tr.insertCell(); url.className = 'url'; url.append(link);
    if (e.refusedHandshake) {
      tr.className = 'refused';
      cell(tr, 'refused'); cell(tr, e.test ?? ''); cell(tr, '', 'num'); cell(tr, '', 'num');
      cell(tr, '✗ TLS handshake refused: ' + e.refusedHandshake.reason, 'verdict bad');
    } else {
      cell(tr, String(e.status ?? (e.error ? 'no answer' : ''))); cell(tr, e.test ?? '');
      const duration = cell(tr, e.durationMs === undefined ? '' : (e.headMs ?? '–') + ' / ' + e.durationMs + ' ms', 'num');
      duration.title = "to the answer's head / to its end";
      cell(tr, '↑ ' + bytes(e.requestBytes) + (e.responseBytes === undefined ? '' : ' ↓ ' + bytes(e.responseBytes)), 'num');
      const broken = [...new Set(e.violations.filter((v) => v.severity !== 'observe').map((v) => v.rule))];
      if (broken.length) cell(tr, '✗ ' + broken.join(' '), 'verdict bad');
      else cell(tr, e.judged ? '✓' : 'not judged', 'verdict ' + (e.judged ? 'good' : 'muted'));
    }
    for (const v of e.violations) addOption('rule', v.rule);
    addOption('test', e.test);
    addOption('client', e.client);
    tr.hidden = !matches(e, filters());
    return tr;
  };
  const apply = () => {
    const f = filters();
    for (const tr of body.rows) tr.hidden = !matches(JSON.parse(tr.dataset.entry), f);
  };
  // The text search runs where the bodies are: the control API answers which exchanges hold it.
  let searched = 0;
  const search = async (after) => {
    const q = filters().q;
    if (!q) { found = null; apply(); return; }
    const asked = ++searched;
    const answer = await fetch(api('api/exchanges', new URLSearchParams({ after: String(after), q })));
    if (!answer.ok || asked !== searched) return;
    const { exchanges } = await answer.json();
    if (after === 0 || !found) found = new Set();
    for (const e of exchanges) found.add(e.seq);
    apply();
  };
  const verdict = document.getElementById('verdict');
  const tests = document.getElementById('tests');
  const clients = document.getElementById('clients');
  let refreshing = null;
  const refresh = async () => {
    refreshing = null;
    const [verdicts, named] = await Promise.all([fetch(api('api/verdicts')), fetch(api('api/tests'))]);
    if (verdicts.ok && verdict) {
      const s = (await verdicts.json()).summary;
      const outcome = s.failed > 0 ? ['failed', 'bad'] : s.untested > 0 ? ['untested', 'warn'] : s.passed > 0 ? ['passed', 'good'] : ['nothing judged yet', 'muted'];
      const strong = document.createElement('strong');
      strong.textContent = outcome[0]; strong.className = outcome[1];
      verdict.replaceChildren('Verdict so far: ', strong, ' — ' + s.passed + ' passed, ' + s.failed + ' failed, ' + (s.warnings ?? 0) + ' warnings, ' + s.untested + ' untested, ' + s.skipped + ' skipped');
    }
    if (named.ok && tests) {
      const items = (await named.json()).tests.map((t) => verdictItem(t, 'test', t.name, ''));
      tests.replaceChildren(...items);
    }
    const told = clients ? await fetch(api('api/clients')) : null;
    if (told?.ok) {
      const items = (await told.json()).clients.map((c) => verdictItem(c, 'client', c.client, 'client '));
      clients.replaceChildren(...items);
    }
  };
  const webhooks = document.querySelector('#webhooks tbody');
  const showWebhooks = async () => {
    const answer = await fetch(api('api/webhooks'));
    if (!answer.ok) return;
    const rows = (await answer.json()).calls.slice(-50).reverse().map((c) => {
      const tr = document.createElement('tr');
      cell(tr, c.orderId); cell(tr, c.url, 'url');
      cell(tr, c.tries.map((t) => (t.status ?? t.error) + ' (' + t.durationMs + ' ms)').join(', ') || 'under way');
      return tr;
    });
    webhooks.replaceChildren(...rows);
  };
  if (webhooks) setInterval(showWebhooks, 2000);
  const flush = () => {
    const batch = pending.splice(0);
    const fragment = document.createDocumentFragment();
    for (const e of batch.slice(-MAX).reverse()) fragment.append(render(e));
    body.prepend(fragment);
    while (body.rows.length > MAX) body.deleteRow(-1);
    state.textContent = 'live: ' + last + ' exchanges so far';
    if (filters().q && batch.length) search(batch[0].seq - 1);
    refreshing ??= setTimeout(refresh, 500);
  };
  const stream = new EventSource(api('api/events', 'after=' + last));
  stream.addEventListener('exchange', (event) => {
    const e = JSON.parse(event.data);
    if (e.seq <= last) return;
    last = e.seq;
    if (pending.push(e) === 1) requestAnimationFrame(flush);
  });
  stream.onerror = () => { state.textContent = 'the stream broke off; it reconnects by itself'; };
  let typing;
  form.addEventListener('input', (event) => {
    const f = filters();
    if (event.target.name === 'q') { clearTimeout(typing); typing = setTimeout(() => search(0), 150); }
    else apply();
    const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
    history.replaceState(null, '', '?' + query);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  if (filters().q) search(0);
})();
`;
}

/** The opened exchange's script: the curl line's copy button, and nothing else. */
export const DETAIL_SCRIPT = `
(() => {
  const button = document.getElementById('copy');
  const line = document.getElementById('curl');
  if (!button || !line) return;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(line.textContent);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(line);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  });
})();
`;
