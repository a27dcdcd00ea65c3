import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyTap, type TapOptions } from '../../proxy/body-tap.js';
import { PIECE_COST } from '../../proxy/held-bytes.js';
import { MemoryBudget } from '../../proxy/memory-budget.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3000, 7)]);

/** Pushes the bytes in chunks of `size`, as a socket would hand them over. */
function tapped(bytes: Buffer, type: string, options: TapOptions = { keepLimit: 1024, keepBinary: false }, size = 500) {
  const tap = new BodyTap({ 'content-type': type }, options);
  for (let at = 0; at < bytes.length; at += size) tap.push(bytes.subarray(at, at + size));
  return tap;
}

describe('the body tap', () => {
  it('records a text body whole, without a digest', () => {
    const xml = Buffer.from('<Checkout><Status>Open</Status></Checkout>');
    expect(tapped(xml, 'application/xml', undefined, 7).finish()).toEqual({ size: xml.length, text: xml.toString() });
  });

  it('decodes a gzip text body for the core', () => {
    const json = Buffer.from('{"status":"Open"}');
    const body = tapped(gzipSync(json), 'application/json').finish('gzip');
    expect(body.text).toBe(json.toString());
    expect(body.sha256).toBeUndefined();
  });

  it('decodes an ISO-8859-1 body by its declaration or charset, and sizes it by its decoded bytes', () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><Name>Café Müller</Name>';
    const latin1 = Buffer.from(xml, 'latin1');
    expect(tapped(latin1, 'text/xml').finish()).toEqual({ size: latin1.length, text: xml });
    const undeclared = Buffer.from('<Name>Müller</Name>', 'latin1');
    expect(tapped(undeclared, 'text/xml; charset=ISO-8859-1').finish().text).toBe('<Name>Müller</Name>');
    // Compressed, the size is that of the bytes the text was read from: how the core tells their encoding.
    expect(tapped(gzipSync(latin1), 'text/xml; charset=ISO-8859-1').finish('gzip')).toEqual({
      size: latin1.length,
      text: xml,
    });
  });

  it('gives a kept binary body a digest of its bytes and its first bytes', () => {
    const small = PDF.subarray(0, 900);
    const body = tapped(small, 'application/pdf').finish();
    expect(body).toEqual({ size: 900, sha256: sha256(small), headBase64: small.subarray(0, 64).toString('base64') });
  });

  it('digests every byte of a body that outgrows the limit part-way through a chunk', () => {
    const body = tapped(PDF, 'application/pdf', { keepLimit: 1200, keepBinary: false }, 700).finish();
    expect(body.size).toBe(PDF.length);
    expect(body.sha256).toBe(sha256(PDF));
    expect(body.base64).toBeUndefined();
  });

  it('says a text body over the limit was not validated, and digests it', () => {
    const big = Buffer.from(`{"pad":"${'x'.repeat(3000)}"}`);
    const body = tapped(big, 'application/json').finish();
    expect(body.text).toBeUndefined();
    expect(body.sha256).toBe(sha256(big));
    expect(body.skipped).toMatch(/too large/);
  });

  it('keeps a binary body whole under --record-bodies, with its digest', () => {
    const body = tapped(PDF, 'application/pdf', { keepLimit: 1 << 20, keepBinary: true }).finish();
    expect(body.base64).toBe(PDF.toString('base64'));
    expect(body.sha256).toBe(sha256(PDF));
  });
});

describe('the body tap and the memory budget', () => {
  const options = (budget: MemoryBudget) => ({ keepLimit: 1_000_000, keepBinary: false, budget });

  it('holds no upload while it passes: a PDF is judged from its digest and first bytes', () => {
    const budget = new MemoryBudget(1_000_000);
    const tap = tapped(PDF, 'application/pdf', options(budget));
    expect(budget.inUse).toBe(0);
    const body = tap.finish();
    expect(body).toMatchObject({ size: PDF.length, sha256: sha256(PDF) });
    expect(body.skipped).toBeUndefined();
  });

  it('holds a JSON body against the budget until it is read, then gives it back', () => {
    const budget = new MemoryBudget(1_000_000);
    const json = Buffer.from(JSON.stringify({ returnUrl: 'x'.repeat(2000) }));
    const tap = tapped(json, 'application/json', options(budget), json.length);
    // What holding it costs: its bytes and the Buffer that holds them.
    expect(budget.inUse).toBe(json.length + PIECE_COST);
    expect(tap.finish().text).toBe(json.toString());
    expect(budget.inUse).toBe(0);
  });

  it('holds a body in small pieces in blocks, charged with what the blocks cost', () => {
    const budget = new MemoryBudget(1_000_000);
    const json = Buffer.from(JSON.stringify({ returnUrl: 'x'.repeat(30_000) }));
    const tap = tapped(json, 'application/json', options(budget), 1);
    // Not a Buffer per byte: the first piece, then blocks of 16 KiB.
    expect(budget.inUse).toBeLessThan(json.length + 16 * 1024 + 4 * PIECE_COST);
    expect(budget.inUse).toBeGreaterThanOrEqual(json.length);
    expect(tap.finish().text).toBe(json.toString());
    expect(budget.inUse).toBe(0);
  });

  it('forwards a body past the budget unheld, recorded as not validated with the reason', () => {
    const budget = new MemoryBudget(1000);
    const json = Buffer.from(JSON.stringify({ returnUrl: 'x'.repeat(2000) }));
    const tap = tapped(json, 'application/json', options(budget));
    expect(tap.overBudget).toBe(true);
    expect(budget.inUse).toBe(0);
    const body = tap.finish();
    expect(body.text).toBeUndefined();
    expect(body.sha256).toBe(sha256(json));
    expect(body.skipped).toMatch(
      /memory budget for bodies held for validation \(1000 bytes, --memory-budget\) was spent/,
    );
  });

  it('lets go of a text body once it is read as text, unless it is forwarded from what it held', () => {
    const json = Buffer.from(JSON.stringify({ returnUrl: 'https://shop.example/€', items: ['😀'.repeat(300)] }));
    const options = { keepLimit: 64 * 1024, keepBinary: false };
    const read = tapped(json, 'application/json', options, 7);
    expect(read.finish()).toEqual({ size: json.length, text: json.toString() });
    expect(read.held()).toEqual([]);
    const forwarded = tapped(json, 'application/json', options, 7);
    forwarded.forwardsHeld = true;
    expect(forwarded.finish()).toEqual({ size: json.length, text: json.toString() });
    expect(Buffer.concat(forwarded.held())).toEqual(json);
  });
});
