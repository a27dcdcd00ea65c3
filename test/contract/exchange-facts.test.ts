import { describe, expect, it } from 'vitest';
import { type ExchangeFacts, factsKey } from '../../src/contract/exchange-facts.js';

// Every fact, set: a fact added to ExchangeFacts must be added here before this compiles.
const ALL: Required<ExchangeFacts> = {
  kind: 'GET checkout',
  status: 200,
  accepted: true,
  requestDocument: 'json',
  requestBody: 'json',
  responseDocument: 'xml',
  responseBody: 'xml',
  responseEmpty: true,
  responseText: true,
  accept: 'xml',
  returnUrlSent: true,
  returnUrlOutOfRange: true,
  statusMember: true,
  paymentUrlMember: true,
  countryMember: true,
  requestCountry: true,
  returnUrlMasked: true,
  countryMasked: true,
  requestShapeMasked: true,
  responseShapeMasked: true,
  givenUrlJudged: true,
  afterPost: true,
  getAfterSetUp: true,
  requestSound: true,
  uploadTypeRefused: true,
  uploadBytesKnown: true,
  fileTypeComparable: true,
};

const OTHER: { [K in keyof ExchangeFacts]-?: ExchangeFacts[K] } = {
  ...ALL,
  kind: 'POST files',
  status: 201,
  requestDocument: 'xml',
  requestBody: 'xml',
  responseDocument: 'json',
  responseBody: 'json',
  accept: 'json',
};

describe('the key of an exchange’s facts', () => {
  it('changes with every fact, alone', () => {
    const keys = new Set([factsKey(ALL)]);
    for (const name of Object.keys(ALL) as (keyof ExchangeFacts)[]) {
      const changed = { ...ALL, [name]: typeof ALL[name] === 'boolean' ? false : OTHER[name] } as ExchangeFacts;
      keys.add(factsKey(changed));
      const without = { ...ALL } as ExchangeFacts;
      if (name !== 'kind' && typeof ALL[name] !== 'boolean') delete without[name];
      if (name !== 'kind' && typeof ALL[name] !== 'boolean') keys.add(factsKey(without));
    }
    const optional = Object.keys(ALL).filter((name) => typeof ALL[name as keyof ExchangeFacts] !== 'boolean');
    // One key for all set, one for each fact changed, one for each optional fact left out.
    expect(keys.size).toBe(1 + Object.keys(ALL).length + optional.length - 1);
  });

  it('is the same for the same facts', () => {
    expect(factsKey({ ...ALL })).toBe(factsKey(ALL));
  });
});
