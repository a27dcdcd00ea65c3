import type { RuleId } from '../contract/rules.js';
import type { Outgoing } from '../http/send.js';
import {
  addressWithEmail,
  characterReferencesXml,
  checkoutRequestBody,
  falseNilReturnUrlXml,
  jsonBillingFirst,
  jsonWithNull,
  nilBillingXml,
  nilReturnUrlXml,
  returnUrlOfLength,
  withByteOrderMark,
  withEncodingDeclaration,
  withoutDeclaration,
  withSingleQuotedDeclaration,
} from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Well-formed checkout requests written the other ways a client may write them: a byte order
// mark, a declaration that names its encoding, one in single quotes or none at all, a charset in
// Content-Type or text/xml, the XMLSchema-instance namespace bound to another prefix, a member nil
// or null, a member the description does not name, characters written as references. A service that reads bytes or prefixes
// where it should read XML refuses these; each must be accepted (or, for the nil that is not one,
// refused as the empty ReturnUrl it is).

interface FormProbe {
  body: (url: string) => string;
  contentType?: string;
  rule: RuleId;
  answer: 'accepted' | 'rejected';
  what: string;
}

const XML_PROBES: FormProbe[] = [
  {
    body: (url) => withByteOrderMark(checkoutRequestBody('xml', url)),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up that starts with a UTF-8 byte order mark',
  },
  {
    body: (url) => withEncodingDeclaration(checkoutRequestBody('xml', url)),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose declaration says encoding="utf-8"',
  },
  {
    body: (url) => withoutDeclaration(checkoutRequestBody('xml', url)),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up without an XML declaration',
  },
  {
    body: (url) => checkoutRequestBody('xml', url),
    contentType: 'application/xml; charset=utf-8',
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up sent as application/xml; charset=utf-8',
  },
  {
    body: (url) => checkoutRequestBody('xml', url),
    contentType: 'text/xml',
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up sent as text/xml',
  },
  {
    body: (url) => withSingleQuotedDeclaration(checkoutRequestBody('xml', url)),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose declaration is in single quotes, as lxml and ElementTree write it',
  },
  {
    body: (url) => nilBillingXml(url),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose Billing is nil, as DataContractSerializer writes an unset member',
  },
  {
    body: (url) => addressWithEmail('xml', url),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose Address carries an Email the description does not name',
  },
  {
    body: (url) => characterReferencesXml(url),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose Name is written with character references (Caf&#233; M&#xFC;ller)',
  },
  {
    body: () => nilReturnUrlXml(),
    rule: 'format.xml-request',
    answer: 'accepted',
    what: 'an XML set-up whose ReturnUrl is nil, the XMLSchema-instance namespace bound to the prefix i',
  },
  {
    body: () => falseNilReturnUrlXml(),
    rule: 'checkout.return-url.length',
    answer: 'rejected',
    what: 'an XML set-up whose ReturnUrl is empty, its xsi:nil in another namespace than XMLSchema-instance',
  },
];

const JSON_PROBES: FormProbe[] = [
  {
    body: (url) => checkoutRequestBody('json', url),
    contentType: 'application/json;charset=UTF-8',
    rule: 'format.json-request',
    answer: 'accepted',
    what: "a JSON set-up sent as application/json;charset=UTF-8, as the real service's guides send it",
  },
  {
    body: (url) => jsonWithNull('billing', url),
    rule: 'format.json-request',
    answer: 'accepted',
    what: 'a JSON set-up whose billing is null, as Json.NET and Jackson write an unset member',
  },
  {
    body: (url) => jsonWithNull('returnUrl', url),
    rule: 'format.json-request',
    answer: 'accepted',
    what: 'a JSON set-up whose returnUrl is null',
  },
  {
    body: (url) => jsonBillingFirst(url),
    rule: 'format.json-request',
    answer: 'accepted',
    what: 'a JSON set-up with billing before returnUrl',
  },
  {
    body: (url) => addressWithEmail('json', url),
    rule: 'format.json-request',
    answer: 'accepted',
    what: 'a JSON set-up whose address carries an email the description does not name',
  },
];

export async function probeRequestForms(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  for (const [index, probe] of (format === 'xml' ? XML_PROBES : JSON_PROBES).entries()) {
    const outgoing: Outgoing = {
      method: 'POST',
      url: run.config.checkoutUrl,
      headers: { accept: type, 'content-type': probe.contentType ?? type },
      body: probe.body(returnUrlOfLength(80, `${id}-${format}-form${index}`)),
    };
    await run.probe(outgoing, {
      format,
      expect: { rule: probe.rule, answer: probe.answer, what: probe.what },
      ignore: probe.rule === 'checkout.return-url.length' ? [probe.rule] : [],
    });
  }
}
