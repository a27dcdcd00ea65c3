import { checkoutRequestBody, returnUrlOfLength, SAMPLE_ADDRESS } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF, REQUEST_RULE } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Set-ups holding what real addresses and shops' ReturnUrls hold: each is valid (strings, a
// ReturnUrl of 5 to 512 units), so it must be accepted and echoed exactly (the core judges the
// echo), and never answered 5xx. Each class is one that real stacks get wrong: a utf8mb3 column
// and an emoji, a post code taken for a number, addslashes and an apostrophe, a Latin-1 writer
// and a Polish city, a serializer refusing a blank post code; a URL parser that stores an
// internationalised host as punycode, refuses a PHP array query or a private host.

interface ValueProbe {
  what: string;
  address?: Record<string, string>;
  returnUrl?: (marker: string) => string;
}

export const REAL_ADDRESSES: ValueProbe[] = [
  {
    what: 'a Name holding an emoji, outside the BMP (Zoë Bakker 🌷)',
    address: { ...SAMPLE_ADDRESS, name: 'Zoë Bakker \u{1F337}' },
  },
  {
    what: 'a PostCode of digits alone (10115, Berlin)',
    address: {
      name: 'Buchhandlung Schmidt',
      line1: 'Invalidenstraße 117',
      postCode: '10115',
      city: 'Berlin',
      country: 'DE',
    },
  },
  {
    what: 'a PostCode with a leading zero (01067, Dresden)',
    address: {
      name: 'Buchhaus Loschwitz',
      line1: 'Schillerplatz 8',
      postCode: '01067',
      city: 'Dresden',
      country: 'DE',
    },
  },
  {
    what: "a City with an apostrophe ('s-Hertogenbosch)",
    address: {
      name: 'Boekhandel Adr',
      line1: 'Kerkstraat 1',
      postCode: '5211 KH',
      city: "'s-Hertogenbosch",
      country: 'NL',
    },
  },
  {
    what: 'a City outside Latin-1 (Łódź)',
    address: { name: 'Księgarnia Żak', line1: 'ul. Piotrkowska 1', postCode: '90-001', city: 'Łódź', country: 'PL' },
  },
  {
    what: 'an empty PostCode (Hong Kong has none)',
    address: { name: 'Chan Tai Man', line1: '1 Queensway', postCode: '', city: 'Hong Kong', country: 'HK' },
  },
];

export const REAL_RETURN_URLS: ValueProbe[] = [
  {
    what: 'a ReturnUrl whose host is internationalised (bücher.example.test)',
    returnUrl: (marker) => `https://bücher.example.test/zurück?probe=${marker}`,
  },
  {
    what: 'a ReturnUrl with a PHP array query (?filter[state]=paid)',
    returnUrl: (marker) => `https://shop.example.test/orders?filter[state]=paid&probe=${marker}`,
  },
  {
    what: 'a ReturnUrl on localhost with a port (http://localhost:8080/…), as a shop under development sends it',
    returnUrl: (marker) => `http://localhost:8080/checkout/return?probe=${marker}`,
  },
];

export async function probeRealValues(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  for (const [index, probe] of [...REAL_ADDRESSES, ...REAL_RETURN_URLS].entries()) {
    const marker = `${id}-${format}-value${index}`;
    const returnUrl = probe.returnUrl ? probe.returnUrl(marker) : returnUrlOfLength(80, marker);
    await run.probe(
      {
        method: 'POST',
        url: run.config.checkoutUrl,
        headers: { accept: type, 'content-type': type },
        body: checkoutRequestBody(format, returnUrl, probe.address),
      },
      {
        format,
        expect: {
          rule: REQUEST_RULE[format],
          answer: 'accepted',
          what: `a ${format.toUpperCase()} set-up with ${probe.what}`,
        },
      },
    );
  }
}
