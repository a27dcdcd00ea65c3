import type { SampleType } from './sample-files.js';

export type Format = 'json' | 'xml';

export const MEDIA_TYPE_OF: Record<Format, string> = { json: 'application/json', xml: 'application/xml' };

/** What the CLI hands the suite: where to probe, how, and which rules to judge. */
export interface SuiteConfig {
  baseUrl: string;
  checkoutUrl: string;
  uploadUrls: { content?: string; cover?: string };
  /** Sent with every request (credentials included; never written anywhere). */
  headers: Record<string, string>;
  /** Names of headers that carry credentials, left out by the observe.auth probe. */
  credentialHeaders: string[];
  /** Secret strings to scrub from anything the suite reports. */
  secrets: string[];
  formats: Format[];
  uploadTypes: SampleType[];
  selected: string[];
  strict: boolean;
  readOnly: boolean;
  uploadSize?: number;
  timeoutMs: number;
  /** Violations of the exchanges made while finding the URLs (orders, oauth). */
  preflight: { rule: string; message: string; exchange: ExchangeSummary }[];
}

/** An exchange as a report shows it: credentials redacted, bodies trimmed. */
export interface ExchangeSummary {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  error?: string;
  /** A command sending the request again, credentials left to variables ($TOKEN). */
  curl?: string;
  /** A few lines of the body a finding names, around the member at its path. */
  excerpt?: string;
}
