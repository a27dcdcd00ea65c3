import { describe, expect, it } from 'vitest';
import { ruleById } from '../../src/contract/rules.js';
import { RecordingJudge } from '../../src/recording/recording-judge.js';
import { exchangeRedactor } from '../../src/redaction/index.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { CheckoutState, judgeExchange } from '../../src/validate/index.js';
import {
  checkoutGet,
  checkoutPost,
  checkoutRequestJson,
  checkoutRequestXml,
  checkoutResponseJson,
  checkoutResponseXml,
  JPEG_BYTES,
  uploadPost,
  uploadResultJson,
  uploadResultXml,
  XML_TYPE,
} from '../helpers/exchanges.js';

// A recording masks secrets (tokens in URLs, members named by --redact) before it is written, and
// validate judges what was written. A rule about a value's length, or about its being the same as
// another, cannot be judged from a mask: the recording is judged without those findings and
// without counting them as evidence, never with findings the traffic did not have.

const withReturnUrl = (returnUrl: string, change: (body: Record<string, any>) => void = () => {}) => {
  const request = JSON.parse(checkoutRequestJson());
  request.returnUrl = returnUrl;
  const response = JSON.parse(checkoutResponseJson());
  response.returnUrl = returnUrl;
  change(response);
  return { request: JSON.stringify(request), response: JSON.stringify(response) };
};

const recorded = (exchange: Exchange, names: string[] = []) => exchangeRedactor({ names })(structuredClone(exchange));

function judged(exchange: Exchange, state = new CheckoutState()) {
  const { violations, tested } = judgeExchange(exchange, state);
  return {
    failing: violations
      .filter((v) => v.severity !== 'observe')
      .map((v) => `${v.rule}@${v.side}`)
      .sort(),
    tested: new Set(tested.map((t) => `${t.rule}@${t.side}`)),
  };
}

describe('values a recording masked', () => {
  // 513 UTF-16 code units with its token, 47 once the token is masked.
  const longUrl = `https://shop.example.test/return?token=${'x'.repeat(474)}`;

  it('leave a ReturnUrl whose token was masked unjudged for its length, on both sides', () => {
    expect(longUrl).toHaveLength(513);
    const { request, response } = withReturnUrl(longUrl);
    const refused = checkoutPost('json', request, '{"message":"returnUrl too long"}', 400);
    const live = judged(refused);
    expect(live.failing).toEqual(['checkout.return-url.length@request']);
    const masked = recorded(refused);
    expect(masked.request.body?.text).toContain('token=[Filtered]');
    // Read as 47 characters, the service's right refusal would be blamed on it.
    const fromRecording = judged(masked);
    expect(fromRecording.failing).toEqual([]);
    expect(fromRecording.tested.has('checkout.return-url.length@request')).toBe(false);
    expect(fromRecording.tested.has('checkout.return-url.length@response')).toBe(false);
    // Exercised all the same: traffic whose every ReturnUrl was masked leaves the rule untested,
    // never skipped as if no client had sent one.
    const { facts } = judgeExchange(masked);
    expect(ruleById('checkout.return-url.length').evidence.exercised?.by(facts)).toBe(true);
    // Accepted, a too long ReturnUrl is two findings live; masked, neither is claimed either way.
    const accepted = checkoutPost('json', request, response, 201);
    expect(judged(accepted).failing).toEqual([
      'checkout.return-url.length@request',
      'checkout.return-url.length@response',
    ]);
    expect(judged(recorded(accepted)).failing).toEqual([]);
  });

  it('are not compared with what was answered or set before, but a member answered with nothing still is', () => {
    const { request, response } = withReturnUrl('https://shop.example.test/return?token=abc', (body) => {
      body.returnUrl = 'https://shop.example.test/return?token=other';
    });
    const post = checkoutPost('json', request, response);
    expect(judged(post).failing).toEqual(['checkout.echo@response']);
    expect(judged(recorded(post)).failing).toEqual([]);
    const dropped = checkoutPost('json', request, JSON.stringify({ ...JSON.parse(response), returnUrl: undefined }));
    expect(judged(recorded(dropped)).failing).toEqual(['checkout.echo@response']);
    // A GET is compared with the set-up before it, masks and all.
    const state = new CheckoutState();
    judged(
      recorded(
        checkoutPost(
          'json',
          request,
          JSON.stringify({ ...JSON.parse(response), returnUrl: JSON.parse(request).returnUrl }),
        ),
      ),
      state,
    );
    expect(judged(recorded(checkoutGet('json', response)), state).failing).toEqual([]);
  });

  it('are compared when only one side holds a mask: a service that answers the mask text has not echoed', () => {
    const { request } = withReturnUrl('https://shop.example.test/return?order=7');
    const answered = JSON.stringify({ ...JSON.parse(checkoutResponseJson()), returnUrl: '[Filtered]' });
    expect(judged(checkoutPost('json', request, answered)).failing).toEqual(['checkout.echo@response']);
  });

  it('never turn a null into a value: a null ReturnUrl named by --redact stays null, and is judged as sent', () => {
    const request = JSON.parse(checkoutRequestJson());
    request.returnUrl = null;
    const response = JSON.parse(checkoutResponseJson());
    delete response.returnUrl;
    const post = checkoutPost('json', JSON.stringify(request), JSON.stringify(response));
    expect(judged(post).failing).toEqual([]);
    const masked = recorded(post, ['ReturnUrl', 'Amount']);
    expect(masked.request.body?.text).toContain('"returnUrl":null');
    // A number is masked (as a string): its value may be the secret.
    expect(masked.response?.body?.text).toMatch(/"amount":"\[Filtered\]"/);
    expect(judged(masked).failing).toEqual([]);
  });

  it('leave a PaymentUrl, Country or Status masked whole (--redact) unjudged', () => {
    const odd = JSON.parse(checkoutResponseJson());
    odd.paymentUrl = '/payments/abc/start';
    odd.status = 'Pending';
    odd.billing.address.country = 'Netherlands';
    const request = JSON.parse(checkoutRequestJson());
    request.billing.address.country = 'Netherlands';
    const post = checkoutPost('json', JSON.stringify(request), JSON.stringify(odd));
    expect(judged(post).failing).toEqual([
      'checkout.country-code@request',
      'checkout.country-code@response',
      'checkout.payment-url@response',
      'checkout.status.known@response',
      'checkout.status.open@response',
    ]);
    const masked = recorded(post, ['PaymentUrl', 'Country', 'Status']);
    expect(masked.response?.body?.text).toContain('"paymentUrl":"[Filtered]"');
    const fromRecording = judged(masked);
    expect(fromRecording.failing).toEqual([]);
    for (const rule of ['checkout.payment-url', 'checkout.status.known', 'checkout.country-code'])
      expect(fromRecording.tested.has(`${rule}@response`), rule).toBe(false);
    expect(fromRecording.tested.has('checkout.country-code@request')).toBe(false);
    expect(ruleById('checkout.country-code').evidence.exercised?.by(judgeExchange(masked).facts)).toBe(true);
  });

  it('leave a PaymentUrl masked in part judged as the URL it was', () => {
    const post = checkoutPost(
      'json',
      undefined,
      JSON.stringify({ ...JSON.parse(checkoutResponseJson()), paymentUrl: 'https://pay.test/start?token=abc' }),
    );
    const masked = recorded(post);
    expect(masked.response?.body?.text).toContain('token=[Filtered]');
    const fromRecording = judged(masked);
    expect(fromRecording.failing).toEqual([]);
    expect(fromRecording.tested.has('checkout.payment-url@response')).toBe(true);
  });

  it('leave a number, an object or a FileType masked whole (--redact Amount, Address, FileType) unjudged for its type', () => {
    const names = ['Amount', 'Address', 'FileType'];
    const odd = JSON.parse(checkoutResponseJson());
    odd.amount = 'twenty';
    const wrong = checkoutPost('json', undefined, JSON.stringify(odd));
    expect(judged(wrong).failing).toEqual(['checkout.response.schema@response']);
    for (const post of [checkoutPost('json'), checkoutPost('xml', checkoutRequestXml(), checkoutResponseXml())]) {
      const masked = recorded(post, names);
      expect(masked.response?.body?.text).toMatch(/"amount":\s*"\[Filtered\]"|<Amount>\[Filtered\]<\/Amount>/);
      expect(judged(masked).failing, post.request.body?.text?.slice(0, 20)).toEqual([]);
      // Not judged, so no evidence: an answer of nothing but masks never passes the rule.
      expect(judged(masked).tested.has('checkout.response.schema@response')).toBe(false);
      expect(judged(masked).tested.has('checkout.request.schema@request')).toBe(false);
    }
    // A JPEG answered as a PDF is a finding live; with FileType masked, the recording shows nothing either way.
    for (const answer of [uploadResultJson('PDF'), uploadResultXml('PDF')]) {
      const upload = uploadPost('image/jpeg', JPEG_BYTES, answer, 200, answer.startsWith('<') ? XML_TYPE : undefined);
      expect(judged(upload).failing).toEqual(['upload.file-type@response']);
      const masked = judged(recorded(upload, names));
      expect(masked.failing).toEqual([]);
      expect(masked.tested.has('upload.file-type@response')).toBe(false);
    }
  });

  it('take over what the proxy found live on a value the recording masked, and only that', () => {
    const { request } = withReturnUrl(longUrl);
    const live = checkoutPost('json', request, '{"message":"returnUrl too long"}', 400);
    const violations = judgeExchange(live).violations;
    expect(violations.map((v) => v.rule)).toEqual(['checkout.return-url.length']);
    const judgedLines = (lines: object[]) => {
      const judge = new RecordingJudge();
      for (const [index, line] of lines.entries()) judge.judgeLine(JSON.stringify(line), { file: 0, line: index + 1 });
      return judge.finish().tally;
    };
    // As the proxy writes it: masked, with its findings beside it.
    const tally = judgedLines([{ ...recorded(live), violations }]);
    expect(tally.broken['checkout.return-url.length']).toBeDefined();
    expect(tally.evidence['checkout.return-url.length']).toBeDefined();
    // Without a mask the line is judged as it stands; a finding on a rule masks cannot hide, or
    // of a rule that does not exist, is never taken over.
    const forged = [
      { rule: 'checkout.return-url.length', severity: 'must', side: 'request', message: 'forged' },
      { rule: 'http.no-server-error', severity: 'must', side: 'response', message: 'forged' },
      { rule: 'no.such-rule', severity: 'must', side: 'response', message: 'forged' },
    ];
    const plain = judgedLines([{ ...checkoutPost('json'), violations: forged }]);
    const forgedRules = (tally: typeof plain) =>
      (['checkout.return-url.length', 'http.no-server-error'] as const).filter((rule) => tally.broken[rule]);
    expect(forgedRules(plain)).toEqual([]);
    const masked = judgedLines([
      {
        ...recorded(checkoutPost('json', withReturnUrl('https://s.test/r?token=abc').request)),
        violations: forged.slice(1),
      },
    ]);
    expect(forgedRules(masked)).toEqual([]);
  });
});
