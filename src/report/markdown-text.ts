// Text from traffic or a results.json in Markdown (a job summary, a pull-request comment) is read
// as text, never as markup: no link or image to a host the service chose, no emphasis, no HTML, no
// table cell or code span ended early. GitHub also turns bare URLs, "www." names and e-mail
// addresses into links; a zero-width space after their telling characters keeps them plain text.

const ZERO_WIDTH_SPACE = '\u200b';

/** Characters that open or close Markdown inline markup, escaped with a backslash. */
const MARKUP = /[\\`*_[\]~|!]/g;

/** What GitHub links without brackets: "scheme://", "www." and the "@" of an e-mail address. */
const AUTOLINK = /:(?=\/\/)|\bwww(?=\.)|@(?=[A-Za-z0-9])/gi;

/** Text as Markdown shows it, letter for letter, inert. */
export function inertText(text: string): string {
  const escaped = text
    .replace(MARKUP, (char) => `\\${char}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(AUTOLINK, (match) => `${match}${ZERO_WIDTH_SPACE}`);
  // A "#" starting a line would make it a heading.
  return escaped.startsWith('#') ? `\\${escaped}` : escaped;
}

/**
 * Text as an inline code span, whatever backticks it holds: its fence is longer than any run of
 * backticks inside (CommonMark §6.1), so none can close it. One line; nothing in it is markup.
 */
export function codeSpan(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const padded = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ` ${flat} ` : flat;
  return `${fence}${padded.replace(/\|/g, '\\|')}${fence}`;
}
