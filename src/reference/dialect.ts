// How the reference service speaks. The defaults are the conformant behaviour, as the real service
// behaves; tests build variants ("mutants") that each break one rule by changing one knob.

export interface OutgoingAnswer {
  endpoint: 'orders' | 'checkout' | 'upload' | 'oauth' | 'other';
  method: string;
  format: 'json' | 'xml';
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Dialect {
  /** ReturnUrl lengths accepted, in UTF-16 code units. */
  returnUrlMin: number;
  returnUrlMax: number;
  /** Upload media types accepted, raw or as the multipart file part's type. */
  uploadTypes: string[];
  acceptMultipart: boolean;
  acceptXmlRequests: boolean;
  /** false: answer JSON whatever Accept says. */
  honourAccept: boolean;
  /** Prefix bound to the XMLSchema-instance namespace: xsi (XmlSerializer) or i (DataContractSerializer). */
  xmlNilPrefix: string;
  /** Pretty-printed CRLF JSON as the real service writes it, or compact. */
  prettyJson: boolean;
  /** Status of a checkout set-up: 201 with Location as the real service, or 200. */
  setUpStatus: 200 | 201;
  /** Members added to the billing address in answers (the real service adds email). */
  extraAddressMembers: Record<string, string>;
  /** Last word on every answer: variants change bodies, statuses or headers here. */
  rewrite?: (answer: OutgoingAnswer) => OutgoingAnswer;
}

export const UPLOAD_TYPES = ['application/pdf', 'image/png', 'image/jpeg'];

export const CONFORMANT: Dialect = {
  returnUrlMin: 5,
  returnUrlMax: 512,
  uploadTypes: UPLOAD_TYPES,
  acceptMultipart: true,
  acceptXmlRequests: true,
  honourAccept: true,
  xmlNilPrefix: 'xsi',
  prettyJson: true,
  setUpStatus: 201,
  extraAddressMembers: { email: 'billing@reference.invalid' },
};
