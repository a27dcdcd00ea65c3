// Generated exchanges that mix JSON and XML checkouts (POST and GET) and uploads, as a proxy would
// record them: the filler of bench/large-recordings.ts, which writes gigabytes of them.
const BASE = 'http://127.0.0.1:8080/v2/';

const address = { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' };
const checkoutJson = (url: string) =>
  JSON.stringify(
    { amount: 22.49, status: 'Open', paymentUrl: `${BASE}payments/p/start`, returnUrl: url, billing: { address } },
    null,
    2,
  );
const checkoutXml = (url: string) =>
  `<?xml version="1.0"?>\n<Checkout xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n  <Amount>22.49</Amount>\n  <Tax xsi:nil="true" />\n  <Status>Open</Status>\n  <PaymentUrl>${BASE}payments/p/start</PaymentUrl>\n  <ReturnUrl>${url}</ReturnUrl>\n  <Billing>\n    <Address>\n      <Name>Print API</Name>\n      <Line1>Osloweg 75</Line1>\n      <PostCode>9700 GE</PostCode>\n      <City>Groningen</City>\n      <Country>NL</Country>\n    </Address>\n  </Billing>\n</Checkout>`;
const requestXml = (url: string) => checkoutXml(url).replace(/\s*<Amount>.*?<\/PaymentUrl>/s, '');

export function exchange(index: number): object {
  const code = `c${index % 5000}`;
  const url = `https://shop.example.test/return?order=${index}`;
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const xml = { 'content-type': 'application/xml; charset=utf-8' };
  const text = (t: string) => ({ text: t, size: Buffer.byteLength(t) });
  switch (index % 5) {
    case 0:
      return {
        request: {
          method: 'POST',
          url: `${BASE}checkout/${code}`,
          headers: { ...json, accept: 'application/json' },
          body: text(JSON.stringify({ returnUrl: url, billing: { address } })),
        },
        response: { status: 201, headers: json, body: text(checkoutJson(url)) },
        violations: [],
      };
    case 1:
      return {
        request: { method: 'GET', url: `${BASE}checkout/${code}`, headers: { accept: 'application/json' } },
        response: { status: 200, headers: json, body: text(checkoutJson(url)) },
        violations: [],
      };
    case 2:
      return {
        request: {
          method: 'POST',
          url: `${BASE}checkout/${code}`,
          headers: { ...xml, accept: 'application/xml' },
          body: text(requestXml(url)),
        },
        response: { status: 201, headers: xml, body: text(checkoutXml(url)) },
        violations: [],
      };
    case 3:
      return {
        request: { method: 'GET', url: `${BASE}checkout/${code}`, headers: { accept: 'application/xml' } },
        response: { status: 200, headers: xml, body: text(checkoutXml(url)) },
        violations: [],
      };
    default:
      return {
        request: {
          method: 'POST',
          url: `${BASE}files/u${index}`,
          headers: { 'content-type': 'application/pdf', accept: 'application/json' },
          body: { size: 104857600, sha256: 'ab'.repeat(32), headBase64: Buffer.from('%PDF-1.7\n').toString('base64') },
        },
        response: { status: 200, headers: json, body: text('{"fileName":"content","fileType":"PDF"}') },
        violations: [],
      };
  }
}
