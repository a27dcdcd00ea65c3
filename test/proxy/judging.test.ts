import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { checkoutRequestJson } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { runSuiteAt } from '../suite/in-process-run.js';
import { BREAKING } from '../suite/mutants.js';

// The suite is used as the client (run in this process, as the mutant matrix runs it): it drives
// every endpoint; the service's mistakes are found on the response side, and the suite's deliberate
// bad requests (marked as its refusals) are held against nobody.

const TRAFFIC_VISIBLE = [
  'a wrong XML checkout root',
  'no Tax element',
  'a tax member in JSON',
  'a ReturnUrl of 513 accepted',
  'a fresh set-up that is not Open',
  'an altered ReturnUrl echo',
  'a stale GET',
  'uploads of text/plain and application/octet-stream accepted',
  'a wrong FileType',
  'Accept: application/xml ignored',
  'XML labelled as JSON',
  'a 500 to a malformed body',
];

describe.concurrent('the proxy judges live traffic', () => {
  for (const name of TRAFFIC_VISIBLE) {
    const mutant = BREAKING.find((m) => m.name === name);
    if (!mutant) throw new Error(`no mutant ${name}`);
    it(`flags ${name} on the service side`, async () => {
      const setup = await proxiedService({ dialect: mutant.dialect });
      try {
        await runSuiteAt(setup.proxy.url);
        const recorded = await setup.recorded();
        const serviceSide = new Set(
          recorded.flatMap((e) =>
            e.violations.filter((v) => v.side === 'response' && v.severity !== 'observe').map((v) => v.rule),
          ),
        );
        for (const rule of mutant.fails) expect([...serviceSide], rule).toContain(rule);
        // The suite's own deliberate mistakes (marked as its refusals) are held against nobody:
        // neither the service nor the suite as a client.
        const clientSide = new Set(
          recorded.flatMap((e) => e.violations.filter((v) => v.side === 'request').map((v) => v.rule)),
        );
        expect([...clientSide]).toEqual([]);
        expect(recorded.some((e) => e.request.headers['print-conformance-probe'] === 'refusal')).toBe(true);
      } finally {
        await setup.dispose();
      }
    });
  }

  it('flags nothing on the service side of the reference service', async () => {
    const setup = await proxiedService();
    try {
      const suite = await runSuiteAt(setup.proxy.url);
      expect(suite.code).toBe(0);
      const recorded = await setup.recorded();
      expect(recorded.flatMap((e) => e.violations.filter((v) => v.side === 'response'))).toEqual([]);
      expect(recorded.length).toBeGreaterThan(20);
      // What only observes (the billing address's email) is an observation, never a violation,
      // in the NDJSON recording and the HAR file alike.
      expect(recorded.flatMap((e) => e.violations).filter((v) => v.severity === 'observe')).toEqual([]);
      const observed = recorded.flatMap((e) => e.observations ?? []).map((o) => o.rule);
      expect(new Set(observed)).toEqual(new Set(['checkout.response.extra']));
      const har = JSON.parse(readFileSync(setup.harFile, 'utf8')) as {
        log: { entries: { _violations: { severity: string }[]; _observations: { rule: string }[] }[] };
      };
      expect(har.log.entries.flatMap((e) => e._violations).filter((v) => v.severity === 'observe')).toEqual([]);
      expect(har.log.entries.some((e) => e._observations.some((o) => o.rule === 'checkout.response.extra'))).toBe(true);
    } finally {
      await setup.dispose();
    }
  });
});

describe('enforce mode', () => {
  it('answers a request that breaks a must rule itself; the service never sees it', async () => {
    const setup = await proxiedService({ proxy: { mode: 'enforce' } });
    try {
      const order = (await (await request(`${setup.proxy.url}orders`, { method: 'POST' })).body.json()) as {
        checkout: { setupUrl: string };
        items: { files: { content: { uploadUrl: string } } }[];
      };
      const code = order.checkout.setupUrl.split('/').at(-1) as string;
      const tooLong = JSON.stringify({
        ...JSON.parse(checkoutRequestJson()),
        returnUrl: `https://e.test/?${'a'.repeat(497)}`,
      });
      const blocked = await request(order.checkout.setupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tooLong,
      });
      expect(blocked.statusCode).toBe(400);
      expect(blocked.headers['print-conformance-violations']).toBe('checkout.return-url.length (request)');
      expect(((await blocked.body.json()) as { message: string }).message).toContain('checkout.return-url.length');
      expect(setup.service.store.checkouts.get(code)?.setUp).toBe(false);

      const wrongType = await request(order.items[0]?.files.content.uploadUrl as string, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '%PDF-1.7 x',
      });
      expect(wrongType.statusCode).toBe(415);
      await wrongType.body.dump();

      const fine = await request(order.checkout.setupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: checkoutRequestJson(),
      });
      expect(fine.statusCode).toBe(201);
      await fine.body.dump();
      expect(setup.service.store.checkouts.get(code)?.setUp).toBe(true);

      const recorded = await setup.recorded();
      expect(recorded.filter((e) => e.blocked).map((e) => e.response?.status)).toEqual([400, 415]);
    } finally {
      await setup.dispose();
    }
  });
});

describe('redaction', () => {
  it('writes no credential to the recording or the HAR: headers, OAuth form, token answer, URL query', async () => {
    const secret = 'cl1ent-s3cret-4711';
    const setup = await proxiedService({
      service: { clientId: 'acme', clientSecret: secret },
      proxy: { redact: { headers: ['x-api-key'], members: ['name'] } },
    });
    try {
      const form = `grant_type=client_credentials&client_id=acme&client_secret=${secret}`;
      const grant = await request(`${setup.proxy.url}oauth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      const token = ((await grant.body.json()) as { access_token: string }).access_token;
      const order = await request(`${setup.proxy.url}orders?access_token=${token}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, cookie: `session=${token}`, 'x-api-key': 'key-123456' },
      });
      expect(order.statusCode).toBe(201);
      await order.body.dump();
      await setup.recorded();
      for (const file of [setup.recordFile, setup.harFile]) {
        const text = readFileSync(file, 'utf8');
        expect(text).not.toContain(secret);
        expect(text).not.toContain(token);
        expect(text).not.toContain('key-123456');
        expect(text).toContain('[Filtered]');
      }
    } finally {
      await setup.dispose();
    }
  });
});
