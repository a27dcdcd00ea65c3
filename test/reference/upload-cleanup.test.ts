import { once } from 'node:events';
import { readdirSync, readlinkSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { KEPT_ORDERS } from '../../src/reference/store.js';
import { multipartBody, PDF_BYTES } from '../helpers/exchanges.js';

// An upload the reference service refuses, or that its client gives up on, leaves nothing behind:
// no partial file in its folder and no file left open.

const LIMIT = 64 * 1024;
let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService({ maxUploadBytes: LIMIT });
});
afterAll(() => service.close());

const filesKept = () => readdirSync(service.uploadFolder);
/** Files of the upload folder that this process holds open. */
const filesOpen = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(service.uploadFolder);
    } catch {
      return false; // closed while listed
    }
  });

/** Waits until `holds` is true of the service (it works on after its client has gone), or fails. */
async function until(holds: () => boolean, what: string) {
  for (let tries = 0; tries < 200 && !holds(); tries += 1) await sleep(25);
  expect(holds(), what).toBe(true);
}

async function uploadUrl(): Promise<string> {
  const order = await send({ method: 'POST', url: `${service.baseUrl}orders` });
  return JSON.parse(order.response?.body?.text ?? '{}').items[0].files.content.uploadUrl;
}

/** Starts an upload of `declared` bytes, sends `sent` of them, waits until storing began, and hangs up. */
async function abandonUpload(contentType: string, head: Buffer, declared: number) {
  const url = new URL(await uploadUrl());
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${declared}\r\n\r\n`,
  );
  socket.write(Buffer.concat([head, Buffer.alloc(16 * 1024, 0x20)]));
  await until(() => filesKept().length > 0, 'the upload is being stored');
  socket.destroy();
}

/** POSTs `body` in chunks of 8 KiB (no Content-Length) and answers the status. */
async function postChunked(url: string, contentType: string, body: Buffer): Promise<number | undefined> {
  const outgoing = request(url, { method: 'POST', headers: { 'content-type': contentType } });
  const answered = once(outgoing, 'response') as Promise<[IncomingMessage]>;
  outgoing.on('error', () => {}); // the service may close before the whole body is sent
  for (let start = 0; start < body.length; start += 8192) outgoing.write(body.subarray(start, start + 8192));
  outgoing.end();
  const [response] = await answered;
  response.resume();
  return response.statusCode;
}

describe('uploads that do not complete', () => {
  it('leave no partial file when refused past the limit, raw or multipart', async () => {
    const big = Buffer.concat([PDF_BYTES, Buffer.alloc(LIMIT * 2)]);
    // Sent in chunks, with no Content-Length: the limit is found while the file is being written.
    expect(await postChunked(await uploadUrl(), 'application/pdf', big)).toBe(413);
    await until(() => filesKept().length === 0, 'no partial raw upload is kept');
    const form = multipartBody([{ name: 'file', filename: 'b.pdf', type: 'application/pdf', bytes: big }]);
    const multipart = await send({
      method: 'POST',
      url: await uploadUrl(),
      headers: { 'content-type': form.contentType },
      body: form.bytes,
    });
    expect(multipart.response?.status).toBe(413);
    await until(() => filesKept().length === 0, 'no partial multipart upload is kept');
  });

  it('leave no partial file and no open file when the client hangs up, raw or multipart', async () => {
    for (let round = 0; round < 3; round += 1) {
      await abandonUpload('application/pdf', PDF_BYTES, 60 * 1024);
      await until(() => filesKept().length === 0 && filesOpen().length === 0, 'a raw upload given up is cleared');
      const boundary = 'b0undary';
      const partHead = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      );
      await abandonUpload(`multipart/form-data; boundary=${boundary}`, Buffer.concat([partHead, PDF_BYTES]), 60 * 1024);
      await until(() => filesKept().length === 0 && filesOpen().length === 0, 'a multipart upload given up is cleared');
    }
  });

  it('keep a completed upload until the next one to its slot replaces it', async () => {
    const url = await uploadUrl();
    const first = await send({ method: 'POST', url, headers: { 'content-type': 'application/pdf' }, body: PDF_BYTES });
    expect(first.response?.status).toBe(200);
    expect(filesKept()).toHaveLength(1);
    await send({ method: 'POST', url, headers: { 'content-type': 'application/pdf' }, body: PDF_BYTES });
    expect(filesKept()).toHaveLength(1);
    expect(filesOpen()).toEqual([]);
  });

  it('answer 404 and keep nothing when the order was forgotten while its file came', async () => {
    const url = new URL(await uploadUrl());
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (bytes) => {
      answer += bytes.toString('latin1');
    });
    const rest = Buffer.alloc(16 * 1024, 0x20);
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/pdf\r\nContent-Length: ${PDF_BYTES.length + 2 * rest.length}\r\nConnection: close\r\n\r\n`,
    );
    const kept = new Set(filesKept());
    socket.write(Buffer.concat([PDF_BYTES, rest]));
    await until(() => filesKept().some((name) => !kept.has(name)), 'the upload is being stored');
    // The store keeps the newest orders: as many newer ones forget the one being uploaded to.
    for (let order = 0; order < KEPT_ORDERS; order += 1) service.store.placeOrder([{ productId: 'p', quantity: 1 }]);
    expect(service.store.uploads.has(url.pathname.split('/').at(-1) ?? '')).toBe(false);
    // Not ended from this side: Node's server drops a request whose client half-closes.
    socket.write(rest);
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    await until(() => filesKept().length === 0 && filesOpen().length === 0, 'the file of a forgotten order is removed');
  });
});
