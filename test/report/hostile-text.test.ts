import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { curlCommand } from '../../src/http/curl-command.js';
import { terminalText } from '../../src/report/terminal-text.js';
import { runCli } from '../helpers/cli.js';

// Text a service or a recording wrote goes into reports: it must not act on the terminal that
// shows it (ESC, BEL, NUL: a new window title, a cleared screen), must not make junit.xml
// something XML 1.0 forbids, and must not become an option of the reproduction command.

// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be printed raw
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u0000\r\u202e';

describe('hostile text in reports', () => {
  it('is shown, not obeyed: on the console, in junit.xml, in GitHub annotations', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-hostile-'));
    try {
      const recording = join(folder, 'hostile.ndjson');
      writeFileSync(
        recording,
        `${JSON.stringify({
          request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } },
          response: {
            status: 500,
            headers: { 'content-type': 'application/json' },
            body: { text: `{"message":"${HOSTILE}"}`, size: 40 },
            error: HOSTILE,
          },
        })}\n`,
      );
      const reports = join(folder, 'reports');
      const result = await runCli(['validate', recording, '--report-dir', reports, '--reporter', 'github']);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('\\x1b]0;pwned\\x07');
      expect(RAW_CONTROL.test(result.stdout)).toBe(false);
      expect(RAW_CONTROL.test(result.stderr)).toBe(false);
      const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
      expect(RAW_CONTROL.test(junit.replaceAll('\n', ''))).toBe(false);
      // A strict XML parser reads it.
      const parser = new SaxesParser();
      let failure: Error | undefined;
      parser.on('error', (error) => {
        failure ??= error;
      });
      parser.write(junit).close();
      expect(failure).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('writes control characters as visible escapes, keeping line breaks and tabs', () => {
    expect(terminalText(`a${HOSTILE}\tb\nc`)).toBe('a\\x1b]0;pwned\\x07\\x1b[2J\\x00\\x0d\\u202e\tb\nc');
    expect(terminalText('plain text')).toBe('plain text');
  });

  it('never lets a recorded URL that starts with "-" become an option of curl', () => {
    const command = curlCommand({ request: { method: 'GET', url: '-K/etc/passwd', headers: {} } });
    expect(command).toMatch(/ --url '?-K\/etc\/passwd'?$/);
    const plain = curlCommand({ request: { method: 'GET', url: 'https://api.test/v2/checkout/c', headers: {} } });
    expect(plain).not.toContain('--url');
  });
});
