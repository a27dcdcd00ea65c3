import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { BIN, runCli, startListeningCli } from '../helpers/cli.js';

describe('print-conformance serve', () => {
  it('prints one "listening on <base-url>" line, serves, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    while (!stdout.includes('\n')) await once(child.stdout, 'data');
    const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/v2\/)\n$/.exec(stdout);
    expect(match).not.toBeNull();
    const answer = await fetch(`${match?.[1]}orders`, { method: 'POST' });
    expect(answer.status).toBe(201);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('says in one line that a port is in use, exit 2', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(['serve', '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `print-conformance: port ${port} on 127.0.0.1 is in use; choose another with --port\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it("hands out URLs under --public-url, whatever Host a client names of it (its own address or the public URL's host)", async () => {
    const serve = await startListeningCli(['serve', '--public-url', 'https://sandbox.example.test/v2']);
    try {
      const answer = await send({
        method: 'POST',
        url: `${serve.url}orders`,
        headers: { host: 'sandbox.example.test' },
      });
      expect(answer.response?.status).toBe(201);
      const order = JSON.parse(answer.response?.body?.text ?? '{}');
      expect(order.checkout.setupUrl).toMatch(/^https:\/\/sandbox\.example\.test\/v2\/checkout\/\w+$/);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
  });

  it('refuses a bad --port, --max-upload and --public-url with exit 2', async () => {
    for (const url of ['sandbox.example.test', 'ftp://s.test/', 'https://s.test/v2/?x=1']) {
      const result = await runCli(['serve', '--public-url', url]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^print-conformance: --public-url \S+/);
    }
    expect((await runCli(['serve', '--port', '70000'])).code).toBe(2);
    // What is not a number reaches the command as NaN: the message never says NaN.
    for (const command of [['serve'], ['proxy', '--target', 'http://127.0.0.1:9/v2/']]) {
      const port = await runCli([...command, '--port', 'abc']);
      expect(port.code).toBe(2);
      expect(port.stderr).toBe('print-conformance: --port needs a port number from 0 to 65535 (0: any free port)\n');
    }
    const size = await runCli(['serve', '--max-upload', 'lots']);
    expect(size.code).toBe(2);
    expect(size.stderr).toMatch(/--max-upload lots is not a size/);
  });
});
