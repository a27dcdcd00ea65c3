// The Node.js the CLI runs on, checked before anything else loads: the proxy reads HTTP with
// Node's own parser (llhttp), and a release whose parser has a known request-smuggling flaw would
// let a client hide a request from it. Such a release is refused, with the reason and the fix.

/** Release lines whose HTTP parser had a known flaw, and the first release of each that fixed it. */
const PARSER_FLAWS: { line: number; fixedIn: [number, number, number]; cve: string; what: string }[] = [
  {
    line: 20,
    fixedIn: [20, 19, 2],
    cve: 'CVE-2025-23167',
    what: 'its HTTP parser ends a header block at "\\r\\n\\rX"',
  },
  {
    line: 21,
    fixedIn: [21, 7, 2],
    cve: 'CVE-2024-27982',
    what: 'its HTTP parser reads a Content-Length field with a space before its name',
  },
];

/** The oldest release the CLI supports, as package.json's engines says. */
const OLDEST = [20, 19, 2] as const;

function parts(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function before(a: readonly number[], b: readonly number[]): boolean {
  for (let index = 0; index < 3; index += 1) {
    if ((a[index] as number) !== (b[index] as number)) return (a[index] as number) < (b[index] as number);
  }
  return false;
}

/** Why the CLI refuses to run on this Node.js version (as process.versions.node gives it), or undefined. */
export function runtimeRefusal(version: string): string | undefined {
  const release = parts(version);
  if (!release) return undefined;
  const supported = `use Node.js ${OLDEST.join('.')} or later on the 20 line, or 22 or later`;
  const flaw = PARSER_FLAWS.find((entry) => entry.line === release[0]);
  if (flaw && before(release, flaw.fixedIn))
    return `Node.js ${release.join('.')} has a known HTTP parser flaw (${flaw.cve}: ${flaw.what}, which lets a request be smuggled past the proxy), fixed in ${flaw.fixedIn.join('.')}; ${supported}`;
  if (before(release, OLDEST)) return `Node.js ${release.join('.')} is older than this tool supports; ${supported}`;
  return undefined;
}
