import { describe, expect, it } from 'vitest';
import type { CoverageData } from '../../src/findings/types.js';
import { mergeCoverage } from '../../src/validate/coverage.js';
import { CheckoutState, judgeExchange } from '../../src/validate/index.js';
import { emptyTally, Tally } from '../../src/validate/tally.js';
import { mergeTallies } from '../../src/validate/tally-merge.js';
import {
  checkoutGet,
  checkoutPost,
  checkoutRequestJson,
  checkoutResponseXml,
  uploadPost,
  uploadResultXml,
  XML_TYPE,
} from '../helpers/exchanges.js';

// Coverage: which documented members, formats, Content-Types and statuses a run's exchanges showed.

function coverageOf(exchanges: Parameters<typeof judgeExchange>[0][]): CoverageData {
  const tally = new Tally({ summarise: () => ({}) as never });
  const state = new CheckoutState();
  for (const exchange of exchanges) tally.record(exchange, judgeExchange(exchange, state));
  return tally.data.coverage;
}

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

describe('coverage', () => {
  it('counts documented members present, absent and nil, per side and format', () => {
    const withoutReturnUrl = JSON.stringify({ billing: JSON.parse(checkoutRequestJson()).billing });
    const coverage = coverageOf([
      checkoutPost('json'),
      checkoutPost('json', withoutReturnUrl),
      checkoutPost('xml'),
      checkoutGet('json'),
    ]);
    const post = coverage['POST checkout'];
    expect(post?.exchanges).toEqual({ json: 2, xml: 1 });
    expect(post?.request.json?.['/returnUrl']).toEqual({ present: 1, absent: 1, nil: 0 });
    expect(post?.request.xml?.['/Billing/Address/City']).toEqual({ present: 1, absent: 0, nil: 0 });
    // The nil Tax is an element of XML answers only; JSON answers have no such member.
    expect(post?.response.xml?.['/Tax']).toEqual({ present: 0, absent: 0, nil: 1 });
    expect(post?.response.json?.['/tax']).toBeUndefined();
    expect(post?.statuses).toEqual({ '201': 3 });
    expect(post?.sent).toEqual({ 'application/json': 2, 'application/xml': 1 });
    expect(coverage['GET checkout']?.request).toEqual({});
    expect(coverage['GET checkout']?.response.json?.['/paymentUrl']).toEqual({ present: 1, absent: 0, nil: 0 });
  });

  it('counts a document sent again each time, on each side it is read on', () => {
    const withoutReturnUrl = JSON.stringify({ billing: JSON.parse(checkoutRequestJson()).billing });
    // Texts that come again are read once (one document stands for all): each still counts.
    const sent = [checkoutPost('json'), checkoutPost('json', withoutReturnUrl), checkoutPost('xml')];
    const coverage = coverageOf([...sent, ...sent, ...sent, ...sent]);
    const post = coverage['POST checkout'];
    expect(post?.request.json?.['/returnUrl']).toEqual({ present: 4, absent: 4, nil: 0 });
    expect(post?.request.xml?.['/Billing/Address/City']).toEqual({ present: 4, absent: 0, nil: 0 });
    expect(post?.response.xml?.['/Tax']).toEqual({ present: 0, absent: 0, nil: 4 });
    // The same text as a set-up and as an answer: one document, read under each side's resource.
    const echoed = checkoutPost('json', withoutReturnUrl, withoutReturnUrl);
    const both = coverageOf([echoed, echoed, echoed])['POST checkout'];
    expect(both?.request.json?.['/returnUrl']).toEqual({ present: 0, absent: 3, nil: 0 });
    expect(both?.response.json?.['/returnUrl']).toEqual({ present: 0, absent: 3, nil: 0 });
    expect(both?.response.json?.['/status']).toEqual({ present: 0, absent: 3, nil: 0 });
  });

  it('counts no members of a refused answer, but its status and Content-Type', () => {
    const refused = checkoutPost('xml', undefined, '<Error><Message>no</Message></Error>', 400);
    const coverage = coverageOf([refused, uploadPost('application/pdf', PDF, uploadResultXml('PDF'), 201, XML_TYPE)]);
    expect(coverage['POST checkout']?.response).toEqual({});
    expect(coverage['POST checkout']?.statuses).toEqual({ '400': 1 });
    expect(coverage['POST files']?.sent).toEqual({ 'application/pdf': 1 });
    expect(coverage['POST files']?.response.xml?.['/FileType']).toEqual({ present: 1, absent: 0, nil: 0 });
  });

  it('merges parts as if one had seen them all', () => {
    const exchanges = [checkoutPost('json'), checkoutPost('xml', undefined, checkoutResponseXml()), checkoutGet('xml')];
    const whole = coverageOf(exchanges);
    const parts = exchanges.map((exchange) => ({ ...emptyTally(), coverage: coverageOf([exchange]) }));
    expect(mergeTallies(parts).coverage).toEqual(whole);
    const into: CoverageData = {};
    mergeCoverage(into, whole);
    mergeCoverage(into, undefined);
    expect(into).toEqual(whole);
  });
});
