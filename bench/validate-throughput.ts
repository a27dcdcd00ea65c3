import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endedChildrenCpuMs } from './process-memory.js';

// Exchanges per second of `print-conformance validate` over a generated 100 000-exchange recording
// that mixes JSON and XML checkouts (POST and GET) and uploads, as a proxy would record them.

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');
const BASE = 'http://127.0.0.1:8080/v2/';

const address = { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' };
const checkoutJson = (url: string) =>
  JSON.stringify(
    { amount: 22.49, status: 'Open', paymentUrl: `${BASE}payments/p/start`, returnUrl: url, billing: { address } },
    null,
    2,
  );
const checkoutXml = (url: string) =>
  `<?xml version="1.0"?>\n<Checkout xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n  <Amount>22.49</Amount>\n  <Tax xsi:nil="true" />\n  <Status>Open</Status>\n  <PaymentUrl>${BASE}payments/p/start</PaymentUrl>\n  <ReturnUrl>${url}</ReturnUrl>\n  <Billing>\n    <Address>\n      <Name>Print API</Name>\n      <Line1>Osloweg 75</Line1>\n      <PostCode>9700 GE</PostCode>\n      <City>Groningen</City>\n      <Country>NL</Country>\n    </Address>\n  </Billing>\n</Checkout>`;
const requestXml = (url: string) => checkoutXml(url).replace(/\s*<Amount>.*?<\/PaymentUrl>/s, '');

export function exchange(index: number): object {
  const code = `c${index % 5000}`;
  const url = `https://shop.example.test/return?order=${index}`;
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const xml = { 'content-type': 'application/xml; charset=utf-8' };
  const text = (t: string) => ({ text: t, size: Buffer.byteLength(t) });
  switch (index % 5) {
    case 0:
      return {
        request: {
          method: 'POST',
          url: `${BASE}checkout/${code}`,
          headers: { ...json, accept: 'application/json' },
          body: text(JSON.stringify({ returnUrl: url, billing: { address } })),
        },
        response: { status: 201, headers: json, body: text(checkoutJson(url)) },
        violations: [],
      };
    case 1:
      return {
        request: { method: 'GET', url: `${BASE}checkout/${code}`, headers: { accept: 'application/json' } },
        response: { status: 200, headers: json, body: text(checkoutJson(url)) },
        violations: [],
      };
    case 2:
      return {
        request: {
          method: 'POST',
          url: `${BASE}checkout/${code}`,
          headers: { ...xml, accept: 'application/xml' },
          body: text(requestXml(url)),
        },
        response: { status: 201, headers: xml, body: text(checkoutXml(url)) },
        violations: [],
      };
    case 3:
      return {
        request: { method: 'GET', url: `${BASE}checkout/${code}`, headers: { accept: 'application/xml' } },
        response: { status: 200, headers: xml, body: text(checkoutXml(url)) },
        violations: [],
      };
    default:
      return {
        request: {
          method: 'POST',
          url: `${BASE}files/u${index}`,
          headers: { 'content-type': 'application/pdf', accept: 'application/json' },
          body: { size: 104857600, sha256: 'ab'.repeat(32), headBase64: Buffer.from('%PDF-1.7\n').toString('base64') },
        },
        response: { status: 200, headers: json, body: text('{"fileName":"content","fileType":"PDF"}') },
        violations: [],
      };
  }
}

/** The whole command, run `runs` times over one file; the best run gives the rate (see proxy-cost.ts). */
export async function benchValidateThroughput(count = 100_000, runs = 3) {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-'));
  const file = join(folder, 'traffic.ndjson');
  try {
    const out = createWriteStream(file);
    for (let i = 0; i < count; i += 1) if (!out.write(`${JSON.stringify(exchange(i))}\n`)) await once(out, 'drain');
    await new Promise((resolve) => out.end(resolve));
    const times: number[] = [];
    const cpuSeconds: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      const cpuBefore = endedChildrenCpuMs();
      const result = spawnSync(process.execPath, [BIN, 'validate', file, '--report-dir', join(folder, 'reports')], {
        encoding: 'utf8',
      });
      times.push((performance.now() - started) / 1000);
      cpuSeconds.push((endedChildrenCpuMs() - cpuBefore) / 1000);
      if (result.status !== 0)
        throw new Error(`validate exited ${result.status}: ${result.stdout.slice(-800)}${result.stderr.slice(-400)}`);
    }
    // CPU time moves less than wall time with other load on the machine: it says what one exchange
    // costs, where the rate says how fast a run went.
    const leastCpu = Math.min(...cpuSeconds);
    const sorted = [...times].sort((a, b) => a - b);
    const best = sorted[0] as number;
    return {
      exchanges: count,
      runs,
      bestSeconds: Number(best.toFixed(2)),
      medianSeconds: Number((sorted[Math.floor(runs / 2)] as number).toFixed(2)),
      exchangesPerSecond: Math.round(count / best),
      cpuSecondsLeast: Number(leastCpu.toFixed(2)),
      cpuMicrosPerExchange: Math.round((leastCpu * 1e6) / count),
      roundsSeconds: times.map((t) => Number(t.toFixed(2))).join(' / '),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
