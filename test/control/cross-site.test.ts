import { describe, expect, it } from 'vitest';
import { fromAnotherSite } from '../../src/http/request-site.js';
import { startReferenceService } from '../../src/reference/service.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// A page of another site in the user's browser must not drive the control API. Browsers that send
// no Sec-Fetch-Site still send Origin with a POST: that is checked in its place.

const NAME_TEST = (origin: string | undefined) => ({
  method: 'POST',
  headers: {
    'content-type': 'text/plain',
    ...(origin === undefined ? {} : { origin }),
  },
  body: JSON.stringify({ name: 'from a page' }),
});

async function nameTestOn(controlBase: string) {
  const statuses: Record<string, number> = {};
  for (const origin of ['http://evil.example', 'null', 'https://127.0.0.1.evil.example', 'file://', undefined]) {
    const answer = await fetch(`${controlBase}api/tests`, NAME_TEST(origin));
    statuses[origin ?? 'none'] = answer.status;
  }
  const own = new URL(controlBase).origin;
  statuses.own = (await fetch(`${controlBase}api/tests`, NAME_TEST(own))).status;
  return statuses;
}

const EXPECTED = {
  'http://evil.example': 403,
  null: 403,
  'https://127.0.0.1.evil.example': 403,
  'file://': 403,
  none: 200,
  own: 200,
};

describe('POST api/tests without Sec-Fetch-Site', () => {
  it('is refused from another Origin, and Origin: null, on the proxy', async () => {
    const setup = await proxiedService();
    try {
      expect(await nameTestOn(`${setup.proxy.url}__print-conformance/`)).toEqual(EXPECTED);
      // Only the requests from this origin and from no browser named a test.
      expect(setup.proxy.control.currentTest).toBe('from a page');
    } finally {
      await setup.dispose();
    }
  });

  it('is refused from another Origin, and Origin: null, on serve', async () => {
    const service = await startReferenceService({ control: {} });
    try {
      expect(await nameTestOn(`${new URL(service.baseUrl).origin}/__print-conformance/`)).toEqual(EXPECTED);
    } finally {
      await service.close();
    }
  });
});

describe('fromAnotherSite', () => {
  it('takes Sec-Fetch-Site first, then Origin against Host (default ports, case, trailing dot)', () => {
    expect(fromAnotherSite({ 'sec-fetch-site': 'same-origin', origin: 'http://evil.example' })).toBe(false);
    expect(fromAnotherSite({ 'sec-fetch-site': 'cross-site' })).toBe(true);
    expect(fromAnotherSite({ origin: 'http://LocalHost.', host: 'localhost:80' })).toBe(false);
    expect(fromAnotherSite({ origin: 'https://shop.example', host: 'shop.example' })).toBe(false);
    expect(fromAnotherSite({ origin: 'http://127.0.0.1:8081', host: '127.0.0.1:8080' })).toBe(true);
    expect(fromAnotherSite({ origin: 'https://sandbox.example' }, ['sandbox.example'])).toBe(false);
    expect(fromAnotherSite({ origin: 'not a url', host: 'x' })).toBe(true);
    expect(fromAnotherSite({ host: 'x' })).toBe(false);
  });
});
