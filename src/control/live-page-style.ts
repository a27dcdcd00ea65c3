// The live page's look: one small sheet, served inline under the page's nonce. On a narrow screen
// (a phone, a split window) each exchange is a small block instead of a table row: the URL gets a
// line of its own, wrapped only where it must be, and the verdict is never cut off.

export const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem 1.5rem; color: #1d2430; }
h1 { font-size: 1.2rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 1rem 0 .25rem; }
form { margin: .5rem 0 1rem; display: flex; gap: .75rem; flex-wrap: wrap; align-items: end; }
select { max-width: 18rem; }
input[type=search] { width: 16rem; max-width: 100%; }
label { display: flex; flex-direction: column; font-size: .8rem; color: #556; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
td.url { overflow-wrap: anywhere; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
.bad { color: #b3261e; font-weight: 600; } .good { color: #1e7b34; } .muted { color: #889; } .warn { color: #8a5a00; font-weight: 600; }
tr.refused td { background: #fff4f2; }
pre { background: #f5f6f8; padding: .5rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
mark { background: #ffd54f; outline: 2px solid #b3261e; }
#state { font-size: .8rem; color: #667; }
#verdict { margin: .25rem 0; }
#tests { list-style: none; padding: 0; margin: .25rem 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.rule-text { margin: .1rem 0 .5rem 1rem; color: #445; font-weight: 400; font-size: .9rem; }
.rule-text strong { color: #1d2430; }
button { font: inherit; }
details summary { cursor: pointer; color: #556; }
@media (max-width: 640px) {
  body { margin: .5rem; }
  thead { display: none; }
  table, tbody { display: block; }
  tbody tr { display: grid; grid-template-columns: auto auto auto 1fr; gap: 0 .5rem; padding: .35rem 0; border-bottom: 1px solid #e3e6ea; }
  tbody td { border: 0; padding: 0; }
  tbody td.url, tbody td.verdict { grid-column: 1 / -1; }
  #webhooks tr { grid-template-columns: 1fr; }
}
`;
