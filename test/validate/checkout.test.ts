import { describe, expect, it } from 'vitest';
import { endpointOf } from '../../src/validate/exchange.js';
import { CheckoutState, validateExchange } from '../../src/validate/index.js';
import {
  checkoutGet,
  checkoutPost,
  checkoutRequestJson,
  checkoutRequestXml,
  checkoutResponseJson,
  checkoutResponseXml,
} from '../helpers/exchanges.js';

const failing = (exchange: Parameters<typeof validateExchange>[0], state?: CheckoutState) =>
  validateExchange(exchange, state)
    .filter((v) => v.severity !== 'observe')
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

const jsonResponse = (change: (body: Record<string, any>) => void) => {
  const body = JSON.parse(checkoutResponseJson());
  change(body);
  return JSON.stringify(body);
};

describe('checkout casing and roots', () => {
  it('catches an upper-case JSON name at any depth, in request and response', () => {
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.billing.address.PostCode = b.billing.address.postCode;
            delete b.billing.address.postCode;
          }),
        ),
      ),
    ).toEqual(['checkout.echo@response', 'checkout.json.casing@response']);
    expect(failing(checkoutPost('json', checkoutRequestJson().replace('"returnUrl"', '"ReturnUrl"')))).toEqual([
      'checkout.json.casing@request',
    ]);
  });

  it('catches a lower-case XML element at any depth and a wrong root', () => {
    expect(failing(checkoutPost('xml', undefined, checkoutResponseXml().replaceAll('Line1>', 'line1>')))).toEqual([
      'checkout.xml.casing@response',
    ]);
    expect(
      failing(checkoutPost('xml', undefined, checkoutResponseXml().replaceAll('Checkout', 'CheckoutResult'))),
    ).toEqual(['checkout.xml.root@response']);
    expect(failing(checkoutPost('xml', checkoutRequestXml().replaceAll('Checkout', 'checkout')))).toEqual([
      'checkout.xml.casing@request',
      'checkout.xml.root@request',
    ]);
  });

  it('names each badly cased member by its whole path, whatever its first letter', () => {
    const casingPaths = (exchange: Parameters<typeof validateExchange>[0]) =>
      validateExchange(exchange)
        .filter((v) => v.rule.endsWith('.casing'))
        .map((v) => v.path);
    const json = jsonResponse((b) => {
      b.billing.address.émail = 'a@b.test';
      b.billing.address.Ünit = '2';
      b.extras = [{ sku: 1 }, { _Sku: 2 }];
    });
    expect(casingPaths(checkoutPost('json', undefined, json))).toEqual(['/billing/address/Ünit', '/extras/1/_Sku']);
    const xml = checkoutResponseXml()
      .replace('<Line1>', '<Ëtage>2</Ëtage><étage>2</étage><Line1>')
      .replace('<Status>', '<_status/><Status>');
    expect(casingPaths(checkoutPost('xml', undefined, xml))).toEqual([
      '/Checkout/_status',
      '/Checkout/Billing/Address/étage',
    ]);
  });

  it('reads prefixed element names by their local part, and holds the root to no namespace', () => {
    const prefixed = checkoutResponseXml()
      .replace('<Checkout ', '<c:Checkout xmlns:c="urn:example" ')
      .replace('</Checkout>', '</c:Checkout>');
    // Casing, schema and echo read the local names; only the root rule minds the namespace.
    expect(failing(checkoutPost('xml', undefined, prefixed))).toEqual(['checkout.xml.root@response']);
    expect(validateExchange(checkoutPost('xml', undefined, prefixed)).map((v) => v.message)).toContain(
      'response root element is <c:Checkout> in namespace urn:example, expected <Checkout> in no namespace',
    );
  });

  it('holds the root and every element below it to no namespace, in requests and answers', () => {
    const dataContract = checkoutResponseXml().replace(
      '<Checkout ',
      '<Checkout xmlns="http://schemas.datacontract.org/2004/07/Print" ',
    );
    expect(failing(checkoutPost('xml', undefined, dataContract))).toEqual(['checkout.xml.root@response']);
    const billing = checkoutResponseXml().replace('<Billing>', '<Billing xmlns="urn:billing">');
    const messages = validateExchange(checkoutPost('xml', undefined, billing)).map((v) => v.message);
    expect(messages.join()).toMatch(/elements in a namespace.*<Billing> at \/Billing in namespace urn:billing/);
    const request = checkoutRequestXml().replace('<Checkout ', '<Checkout xmlns="urn:print" ');
    expect(failing(checkoutPost('xml', request, undefined, 400))).toEqual(['checkout.xml.root@request']);
    // The XMLSchema-instance and XMLSchema declarations are no namespace of the elements.
    expect(failing(checkoutPost('xml'))).toEqual([]);
  });
});

describe('checkout.xml.tax-nil', () => {
  const withTax = (tax: string) => checkoutResponseXml().replace('<Tax xsi:nil="true" />', tax);
  const namespaces =
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

  it('accepts i:nil bound to the XMLSchema-instance namespace (DataContractSerializer style)', () => {
    const dataContract = checkoutResponseXml()
      .replace(namespaces, 'xmlns:i="http://www.w3.org/2001/XMLSchema-instance"')
      .replace('<Tax xsi:nil="true" />', '<Tax i:nil="true"></Tax>');
    expect(failing(checkoutPost('xml', undefined, dataContract))).toEqual([]);
  });

  it('fails xsi:nil when xsi is bound to another namespace', () => {
    const foreign = checkoutResponseXml().replace(
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
      'xmlns:xsi="urn:not-schema-instance"',
    );
    const violations = validateExchange(checkoutPost('xml', undefined, foreign));
    expect(violations.map((v) => v.rule)).toEqual(['checkout.xml.tax-nil']);
    expect(violations[0]?.message).toContain('urn:not-schema-instance');
  });

  it('fails a missing Tax, a Tax without nil, nil="false", and a nil Tax with content', () => {
    expect(failing(checkoutPost('xml', undefined, withTax('')))).toEqual(['checkout.xml.tax-nil@response']);
    expect(failing(checkoutPost('xml', undefined, withTax('<Tax />')))).toEqual(['checkout.xml.tax-nil@response']);
    expect(failing(checkoutPost('xml', undefined, withTax('<Tax xsi:nil="false" />')))).toEqual([
      'checkout.xml.tax-nil@response',
    ]);
    expect(failing(checkoutPost('xml', undefined, withTax('<Tax xsi:nil="true">1.00</Tax>')))).toEqual([
      'checkout.xml.tax-nil@response',
    ]);
  });

  it('fails a second Tax, whatever it holds: exactly one', () => {
    for (const second of ['<Tax>0.00</Tax>', '<Tax xsi:nil="true" />']) {
      const twice = withTax(`<Tax xsi:nil="true" />\n  ${second}`);
      const violations = validateExchange(checkoutPost('xml', undefined, twice));
      expect(violations.map((v) => v.rule).filter((r) => r !== 'checkout.response.extra')).toEqual([
        'checkout.xml.tax-nil',
      ]);
      expect(violations[0]?.message).toMatch(/2 <Tax> elements under the root; exactly one/);
    }
  });

  it('finds Tax by its namespace too: an <xsi:Tax> or a Tax under a default namespace is not Tax', () => {
    for (const tax of ['<xsi:Tax xsi:nil="true" />', '<Tax xmlns="urn:print-api" xsi:nil="true" />']) {
      const violations = validateExchange(checkoutPost('xml', undefined, withTax(tax)));
      expect(violations.map((v) => v.rule).sort(), tax).toEqual(['checkout.xml.root', 'checkout.xml.tax-nil']);
      expect(violations.find((v) => v.rule === 'checkout.xml.tax-nil')?.message, tax).toMatch(/is in namespace/);
    }
  });

  it('fails a Tax nested below the root rather than its child', () => {
    const nested = withTax('').replace('<Billing>', '<Billing>\n    <Tax xsi:nil="true" />');
    expect(failing(checkoutPost('xml', undefined, nested))).toContain('checkout.xml.tax-nil@response');
  });
});

describe('checkout.json.no-tax', () => {
  it('fails a tax member in JSON, nil or not', () => {
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.tax = null;
          }),
        ),
      ),
    ).toEqual(['checkout.json.no-tax@response']);
  });
});

describe('checkout.return-url.length (UTF-16 code units)', () => {
  const withReturnUrl = (url: string) => JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl: url });
  const echoing = (url: string) =>
    jsonResponse((b) => {
      b.returnUrl = url;
    });
  const ofLength = (n: number) => `https://e.test/?${'a'.repeat(n - 16)}`;

  it('passes 5 and 512, fails 4 and 513 on the request side', () => {
    for (const n of [5, 512]) {
      const url = n === 5 ? 'a://b' : ofLength(n);
      expect(url.length).toBe(n);
      expect(failing(checkoutPost('json', withReturnUrl(url), echoing(url), 201))).toEqual([]);
      // Refused, a ReturnUrl in range is the service's fault (and so is refusing a sound JSON set-up).
      expect(failing(checkoutPost('json', withReturnUrl(url), '{"message":"too long"}', 400))).toEqual([
        'checkout.return-url.length@response',
        'format.json-request@response',
      ]);
    }
    for (const n of [4, 513]) {
      const url = n === 4 ? 'a://' : ofLength(n);
      expect(failing(checkoutPost('json', withReturnUrl(url), echoing(url), 400))).toEqual([
        'checkout.return-url.length@request',
      ]);
    }
  });

  it('counts a character outside the Basic Multilingual Plane as two units: 512 code points can be 513 units', () => {
    const url = `${ofLength(511)}😀`;
    expect([...url].length).toBe(512);
    expect(url.length).toBe(513);
    expect(failing(checkoutPost('json', withReturnUrl(url), echoing(url), 400))).toEqual([
      'checkout.return-url.length@request',
    ]);
  });

  it('flags a 2xx answer to an out-of-range ReturnUrl as the service breaking the rule too', () => {
    const url = ofLength(513);
    expect(failing(checkoutPost('json', withReturnUrl(url), echoing(url), 201))).toEqual([
      'checkout.return-url.length@request',
      'checkout.return-url.length@response',
    ]);
  });

  it('reads the ReturnUrl of an XML request too', () => {
    const xml = checkoutRequestXml().replace(/<ReturnUrl>[^<]*</, '<ReturnUrl>a://<');
    expect(failing(checkoutPost('xml', xml, undefined, 400))).toEqual(['checkout.return-url.length@request']);
  });
});

describe('checkout.response.schema and checkout.get.shape', () => {
  it('fails a missing Amount, a string Amount, and a non-string Country', () => {
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            delete b.amount;
          }),
        ),
      ),
    ).toEqual(['checkout.response.schema@response']);
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.amount = '22.49';
          }),
        ),
      ),
    ).toEqual(['checkout.response.schema@response']);
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.billing.address.country = 31;
          }),
        ),
      ),
    ).toEqual(['checkout.echo@response', 'checkout.response.schema@response']);
  });

  it('reads an XML Amount as xs:decimal: 100.0 holds, 22,49 does not', () => {
    const amount = (text: string) =>
      checkoutResponseXml().replace('<Amount>22.49</Amount>', `<Amount>${text}</Amount>`);
    expect(failing(checkoutPost('xml', undefined, amount('100.0')))).toEqual([]);
    expect(failing(checkoutPost('xml', undefined, amount('-.5')))).toEqual([]);
    const violations = validateExchange(checkoutPost('xml', undefined, amount('22,49')));
    expect(violations.map((v) => v.rule)).toEqual(['checkout.response.schema']);
    expect(violations[0]?.path).toBe('/Amount');
  });

  it('accepts an absent or nil ReturnUrl when none was sent', () => {
    const request = JSON.stringify({ billing: JSON.parse(checkoutRequestJson()).billing });
    expect(
      failing(
        checkoutPost(
          'json',
          request,
          jsonResponse((b) => {
            delete b.returnUrl;
          }),
        ),
      ),
    ).toEqual([]);
    expect(
      failing(
        checkoutPost(
          'json',
          request,
          jsonResponse((b) => {
            b.returnUrl = null;
          }),
        ),
      ),
    ).toEqual([]);
    const nilXml = checkoutResponseXml().replace(/<ReturnUrl>[^<]*<\/ReturnUrl>/, '<ReturnUrl xsi:nil="true" />');
    expect(
      failing(checkoutPost('xml', checkoutRequestXml().replace(/\s*<ReturnUrl>[^<]*<\/ReturnUrl>/, ''), nilXml)),
    ).toEqual([]);
  });

  it('judges a GET answer under checkout.get.shape', () => {
    expect(
      failing(
        checkoutGet(
          'json',
          jsonResponse((b) => {
            delete b.paymentUrl;
          }),
        ),
      ),
    ).toEqual(['checkout.get.shape@response']);
    expect(failing(checkoutGet('xml', checkoutResponseXml().replace(/<Status>Open<\/Status>/, '')))).toEqual([
      'checkout.get.shape@response',
    ]);
  });

  it('fails a 2xx answer without a body', () => {
    const exchange = checkoutPost('json');
    exchange.response!.body = { size: 0, text: '' };
    expect(failing(exchange)).toEqual(['checkout.response.schema@response']);
  });
});

describe('checkout.response.extra', () => {
  it('lists unnamed members as an observation, never a failure', () => {
    const violations = validateExchange(
      checkoutPost(
        'xml',
        undefined,
        checkoutResponseXml().replace('</Country>', '</Country>\n      <Email>a@b.c</Email>'),
      ),
    );
    expect(violations).toEqual([
      expect.objectContaining({ rule: 'checkout.response.extra', severity: 'observe', path: '/Billing/Address/Email' }),
    ]);
  });
});

describe('checkout status, echo, PaymentUrl, country', () => {
  it('checkout.status.open: a POST answered with another status', () => {
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.status = 'Successful';
          }),
        ),
      ),
    ).toEqual(['checkout.status.open@response']);
    // A GET may answer any known status.
    expect(
      failing(
        checkoutGet(
          'json',
          jsonResponse((b) => {
            b.status = 'Successful';
          }),
        ),
      ),
    ).toEqual([]);
  });

  it('checkout.status.known: an unknown value is named', () => {
    const violations = validateExchange(
      checkoutGet(
        'json',
        jsonResponse((b) => {
          b.status = 'Pending';
        }),
      ),
    );
    expect(violations.map((v) => v.rule)).toContain('checkout.status.known');
    expect(violations.find((v) => v.rule === 'checkout.status.known')?.message).toContain('"Pending"');
  });

  it('checkout.echo: an altered ReturnUrl or address field', () => {
    expect(
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.returnUrl += '&x=1';
          }),
        ),
      ),
    ).toEqual(['checkout.echo@response']);
    expect(failing(checkoutPost('xml', undefined, checkoutResponseXml().replace('9700 GE', '9700GE')))).toEqual([
      'checkout.echo@response',
    ]);
  });

  it('checkout.payment-url: relative, non-http or no URL at all', () => {
    const judged = (paymentUrl: string) =>
      failing(
        checkoutPost(
          'json',
          undefined,
          jsonResponse((b) => {
            b.paymentUrl = paymentUrl;
          }),
        ),
      );
    for (const bad of [
      '/payments/abc/start',
      'ftp://x.test/p',
      'http://pay.test:99999/p',
      'http://pay.test:65536/p',
      'http://pay .test/p',
      // What WHATWG's new URL() repairs is no URL by RFC 3986 and RFC 9110: an empty host,
      // white space and control characters anywhere, a stray "%", a character outside ASCII.
      'http:///v2/payments/abc/start',
      'https:///abc',
      'http://:8080/p',
      'http://user@/p',
      'https://pay.test/v2/payments/abc/start\n',
      'https://pay.test/v2/pay\nments/abc/start',
      'https://pay.test/v2/pay\tments/abc',
      ' https://pay.test/p',
      'https://pay.test/p q',
      'https://pay.test/p\u0000',
      'https://pay.test/100%',
      'https://pay.test/café',
      'https:pay.test/p',
      'http:/pay.test/p',
      'https://pay.test\\p',
    ])
      expect(judged(bad), JSON.stringify(bad)).toEqual(['checkout.payment-url@response']);
    for (const good of [
      'https://pay.test/start?x=1&y=%20',
      'http://[::1]:8080/p',
      'http://pay.test:65535',
      'https://localhost:44312/pay?x=1',
      'http://pay.test:08080/p',
      'HTTPS://Pay.Test/start#top',
      'https://pay.test/caf%C3%A9?q=a/b?c#f/g?h',
      "https://pay.test/p;v=1/(x)*!$&'+,=:@~",
      'https://user:pw@pay.test/p',
      'http://192.0.2.1/p',
      'http://[v1.fe80::a+en1]/p',
      // A recording masks tokens: the URL answered was a URL.
      'https://pay.test/pay/session/[Filtered]/start?token=[Filtered]',
    ])
      expect(judged(good), good).toEqual([]);
    expect(judged('https://pay.test/[Filtered] x')).toEqual(['checkout.payment-url@response']);
  });

  it('checkout.country-code: a name or lower-case code', () => {
    const request = (country: string) =>
      JSON.stringify({
        ...JSON.parse(checkoutRequestJson()),
        billing: { address: { ...JSON.parse(checkoutRequestJson()).billing.address, country } },
      });
    const response = (country: string) =>
      jsonResponse((b) => {
        b.billing.address.country = country;
      });
    const both = ['checkout.country-code@request', 'checkout.country-code@response'];
    expect(failing(checkoutPost('json', request('nl'), response('nl')))).toEqual(both);
    expect(failing(checkoutPost('json', request('NLD'), response('NLD')))).toEqual(both);
    expect(failing(checkoutPost('json', request('DE'), response('DE')))).toEqual([]);
    // What a client sends is judged on its own: a service answering a code does not excuse a name.
    expect(failing(checkoutPost('json', request('Netherlands'), response('NL')))).toEqual([
      'checkout.country-code@request',
      'checkout.echo@response',
    ]);
  });
});

describe('checkout.get.consistent', () => {
  it('fails a GET that answers other values than the POST to the same code set', () => {
    const state = new CheckoutState();
    expect(failing(checkoutPost('json'), state)).toEqual([]);
    expect(failing(checkoutGet('json'), state)).toEqual([]);
    expect(
      failing(
        checkoutGet(
          'json',
          jsonResponse((b) => {
            b.returnUrl = 'https://stale.test/x';
          }),
        ),
        state,
      ),
    ).toEqual(['checkout.get.consistent@response']);
  });

  it('compares a GET with the last set-up the service accepted, even one whose answer did not parse', () => {
    const state = new CheckoutState();
    expect(failing(checkoutPost('json'), state)).toEqual([]);
    const other = (b: Record<string, any>) => {
      b.returnUrl = 'https://shop.example.test/again';
      b.billing.address.name = 'Café Müller';
    };
    const request = JSON.stringify(
      (() => {
        const body = JSON.parse(checkoutRequestJson());
        other(body);
        return body;
      })(),
    );
    // Accepted, its answer cut off: the service holds this set-up all the same.
    const cut = jsonResponse(other).slice(0, -5);
    expect(failing(checkoutPost('json', request, cut), state)).toEqual(['format.well-formed@response']);
    expect(failing(checkoutGet('json', jsonResponse(other)), state)).toEqual([]);
    expect(new Set(failing(checkoutGet('json'), state))).toEqual(new Set(['checkout.get.consistent@response']));
  });

  it('compares nothing after an accepted set-up whose request could not be read, nor minds a refused one', () => {
    const state = new CheckoutState();
    expect(failing(checkoutPost('json'), state)).toEqual([]);
    const changed = jsonResponse((b) => {
      b.returnUrl = 'https://other.test/x';
    });
    // Refused: the earlier set-up holds, and a GET answering something else is inconsistent.
    failing(checkoutPost('json', '{"returnUrl": "https://other.test/x"}', '{"message":"no"}', 400), state);
    expect(failing(checkoutGet('json', changed), state)).toEqual(['checkout.get.consistent@response']);
    // Accepted but unreadable: what the service now holds is not known, so nothing is compared.
    failing(checkoutPost('json', '{"returnUrl": ', changed), state);
    expect(failing(checkoutGet('json', changed), state)).toEqual([]);
  });

  it('says nothing of a GET without an earlier POST', () => {
    expect(
      failing(
        checkoutGet(
          'json',
          jsonResponse((b) => {
            b.returnUrl = 'https://other.test/x';
          }),
        ),
        new CheckoutState(),
      ),
    ).toEqual([]);
  });
});

describe('endpointOf', () => {
  it('reads the endpoint from the path a URL parser would see, dot segments and escapes included', () => {
    expect(endpointOf('http://127.0.0.1:8080/v2/checkout/abc?x=1')).toEqual({
      kind: 'checkout',
      code: 'abc',
      key: '/v2/checkout/abc',
    });
    expect(endpointOf('http://h/v2/checkout/abc/../../files/def').kind).toBe('upload');
    expect(endpointOf('http://h/v2/files/%2e%2e/checkout/abc').kind).toBe('checkout');
    expect(endpointOf('http://h:99999/v2/checkout/abc').kind).toBe('other');
    expect(endpointOf('http://h:65536/v2/checkout/abc').kind).toBe('other');
    expect(endpointOf('http://127.0.0.1:45615/v2/files/abc')).toEqual({
      kind: 'upload',
      code: 'abc',
      key: '/v2/files/abc',
    });
    expect(endpointOf('/v2/files/abc').kind).toBe('upload');
  });
});

describe('an answer read again', () => {
  // A client polling its checkout gets the same document again and again: its reading is kept.
  const polled = (format: 'json' | 'xml', text: string) =>
    Array.from({ length: 4 }, () => validateExchange(checkoutGet(format, text)));

  it('is judged the same each time, with findings of its own in each exchange', () => {
    for (const [format, text] of [
      ['json', jsonResponse((b) => Object.assign(b, { status: 'Pending', Extra: 1 }))],
      ['xml', checkoutResponseXml().replace('<Status>Open</Status>', '<Status>Pending</Status>')],
    ] as const) {
      const [first, ...again] = polled(format, text);
      expect(first?.map((v) => v.rule)).toContain('checkout.status.known');
      for (const violations of again) {
        expect(violations).toEqual(first);
        // A writer that redacts or annotates one exchange's findings leaves the next one's alone.
        for (const [index, violation] of violations.entries()) expect(violation).not.toBe(first?.[index]);
      }
    }
  });

  it('and a set-up sent again: its casing found each time, in findings of its own', () => {
    const request = checkoutRequestJson().replace('"returnUrl"', '"ReturnUrl"');
    const judged = Array.from({ length: 4 }, () => validateExchange(checkoutPost('json', request)));
    const casingOf = (violations: (typeof judged)[number]) =>
      violations.filter((v) => v.rule === 'checkout.json.casing' && v.side === 'request');
    for (const violations of judged) {
      expect(casingOf(violations)).toHaveLength(1);
      expect(violations).toEqual(judged[0]);
      if (violations !== judged[0]) expect(casingOf(violations)[0]).not.toBe(casingOf(judged[0] ?? [])[0]);
    }
  });

  it('as a fresh set-up and as a read, by the rules of each', () => {
    const answer = jsonResponse((b) => Object.assign(b, { status: 'Successful' }));
    for (let round = 0; round < 3; round += 1) {
      expect(failing(checkoutGet('json', answer))).not.toContain('checkout.status.open@response');
      expect(failing(checkoutPost('json', undefined, answer))).toContain('checkout.status.open@response');
    }
  });
});
