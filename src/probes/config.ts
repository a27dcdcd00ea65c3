import type { RuleId } from '../contract/rules.js';
import type { TallyData } from '../validate/tally.js';
import type { VerdictContext } from '../validate/verdicts.js';
import type { GenerateOptions } from './generated/generated-probes.js';
import type { SampleType } from './sample-files.js';

export type Format = 'json' | 'xml';

export const MEDIA_TYPE_OF: Record<Format, string> = { json: 'application/json', xml: 'application/xml' };

/** The rule under which a sound set-up in each format must be accepted. */
export const REQUEST_RULE: Record<Format, RuleId> = { json: 'format.json-request', xml: 'format.xml-request' };

/** What the CLI hands the suite: where to probe, how, and which rules to judge. */
export interface SuiteConfig {
  baseUrl: string;
  checkoutUrl: string;
  /** The checkout of a second order, when the suite placed its orders: two checkouts each read back their own. */
  secondCheckoutUrl?: string;
  uploadUrls: { content?: string; cover?: string };
  /** Sent with every request (credentials included; never written anywhere). */
  headers: Record<string, string>;
  /** Names of headers that carry credentials, left out by the observe.auth probe. */
  credentialHeaders: string[];
  /** Secret strings to scrub from anything the suite reports. */
  secrets: string[];
  formats: Format[];
  uploadTypes: SampleType[];
  selected: RuleId[];
  strict: boolean;
  readOnly: boolean;
  uploadSize?: number;
  timeoutMs: number;
  /** What the exchanges made while finding the URLs (orders, oauth) showed. */
  preflight: TallyData;
  /** Generated tests after the fixed probes (--generate). */
  generate?: GenerateOptions;
}

/** What the suite's verdicts are reached under: the rules, formats and options of the run. */
export function suiteContext(config: SuiteConfig): VerdictContext {
  return {
    face: 'suite',
    selected: new Set(config.selected),
    formats: config.formats,
    strict: config.strict,
    readOnly: config.readOnly,
    uploadSize: config.uploadSize !== undefined,
  };
}
