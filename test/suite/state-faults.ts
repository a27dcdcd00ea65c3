import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { type Mutant, ok } from './mutant-helpers.js';

// Faults real stacks make with state: a set-up kept in a shared field while its handler awaits,
// a GET cache keyed without the checkout's code, set-ups filled into the record rather than
// replacing it, an empty address written as a PHP array, and XML readers that take one member
// order or one encoding only.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A singleton holding the set-up being handled (an ASP.NET Core singleton service or a Spring
 * @Service with a field): a second request that arrives while the first awaits its database call
 * overwrites it, and the first answers the second's values.
 */
function sharedSetUp() {
  const shared: { current?: Record<string, unknown> } = {};
  return async (model: Record<string, unknown>) => {
    shared.current = model;
    await sleep(15);
    return shared.current;
  };
}

/** Laravel's Cache::remember('checkout.'.$format): the code is not in the key; a set-up forgets it. */
function cacheWithoutCode() {
  const cached = new Map<string, OutgoingAnswer>();
  return (answer: OutgoingAnswer): OutgoingAnswer => {
    if (answer.endpoint !== 'checkout' || !ok(answer)) return answer;
    if (answer.method === 'POST') {
      cached.clear();
      return answer;
    }
    const hit = cached.get(answer.format);
    if (hit) return { ...answer, body: hit.body };
    cached.set(answer.format, answer);
    return answer;
  };
}

/** PHP's json_encode of an empty array: an address with no field is written `[]`. */
const emptyAddressAsArray = (answer: OutgoingAnswer): OutgoingAnswer =>
  answer.endpoint === 'checkout' && answer.format === 'json'
    ? { ...answer, body: answer.body.replace(/"address":\s*\{\s*\}/, '"address": []') }
    : answer;

const ADDRESS_ORDER = ['Name', 'Line1', 'PostCode', 'City', 'Country'];
const FIELD_OF: Record<string, string> = {
  Name: 'name',
  Line1: 'line1',
  PostCode: 'postCode',
  City: 'city',
  Country: 'country',
};

/**
 * XmlSerializer with [XmlElement(Order = n)] reads members as a sequence: one that comes after a
 * later member is skipped as unknown. Billing before ReturnUrl loses ReturnUrl; the address A to Z
 * keeps only the fields that still follow the documented order.
 */
function sequenceReader(model: Record<string, unknown>, text: string): Record<string, unknown> {
  if (!text.includes('<Checkout')) return model;
  const out: Record<string, unknown> = { ...model };
  const at = (tag: string) => text.indexOf(`<${tag}>`);
  if (at('Billing') >= 0 && at('ReturnUrl') > at('Billing')) delete out.returnUrl;
  const billing = model.billing as { address?: Record<string, unknown> } | undefined;
  if (billing?.address) {
    const address: Record<string, unknown> = {};
    let last = -1;
    for (const tag of ADDRESS_ORDER) {
      const field = FIELD_OF[tag] as string;
      const place = at(tag);
      if (place < 0 || !(field in billing.address)) continue;
      if (place > last) {
        address[field] = billing.address[field];
        last = place;
      }
    }
    out.billing = { ...billing, address };
  }
  return out;
}

/** Go's encoding/xml without a CharsetReader: any declared encoding but UTF-8 is an error. */
function utf8Only(_request: unknown, body: Buffer): number | undefined {
  if (body[0] === 0xff || body[0] === 0xfe) return 400;
  const declared = /^<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(body.subarray(0, 200).toString('latin1'))?.[1];
  return declared && !/^utf-?8$/i.test(declared) ? 400 : undefined;
}

export const STATE_MUTANTS: Mutant[] = [
  {
    name: 'a set-up kept in a singleton field while its handler awaits (two at once answer one)',
    dialect: { readCheckout: sharedSetUp() },
    fails: ['checkout.echo'],
  },
  {
    name: "GET checkout cached under a key without the checkout's code (Cache::remember, dropped on set-up)",
    dialect: { rewrite: cacheWithoutCode() },
    fails: ['checkout.get.consistent'],
  },
  {
    name: "set-ups filled into the record, not replacing it (Eloquent's fill): members left out keep their values",
    dialect: { keepUnsentMembers: true },
    fails: ['checkout.echo'],
  },
  {
    name: 'an empty address written as [] (PHP json_encode of an empty array)',
    dialect: { extraAddressMembers: {}, rewrite: emptyAddressAsArray },
    // The GET of a checkout before its first set-up reads an empty address too.
    fails: ['checkout.get.shape', 'checkout.response.schema'],
  },
  {
    name: 'XML members read as a sequence in the documented order (XmlSerializer with Order): others dropped',
    dialect: { readCheckout: sequenceReader },
    fails: ['checkout.echo'],
  },
  {
    name: "Go's encoding/xml without a CharsetReader: UTF-16 and ISO-8859-1 set-ups refused",
    dialect: { refuseCheckout: utf8Only },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
];
