import type { RuleId } from '../../src/contract/rules.js';
import type { Dialect, OutgoingAnswer } from '../../src/reference/dialect.js';

// What the variants of the reference service are made of: a dialect, and the verdicts it must get.

export type Rewrite = (answer: OutgoingAnswer) => OutgoingAnswer;

export interface Mutant {
  name: string;
  dialect: Partial<Dialect>;
  /** Upload URLs the suite is given: those of the order it places (default), or the content slot alone. */
  slots?: 'order' | 'content-only';
  /** Rules whose status must be "failed" (must failures and should warnings), nothing else. */
  fails: RuleId[];
  /**
   * Rules the service breaks in the run's traffic as validate and the proxy judge it, nothing
   * else; by default those of `fails` that are judged in traffic at all.
   */
  traffic?: RuleId[];
}

export interface StarvedVariant {
  name: string;
  dialect: Partial<Dialect>;
  slots?: 'order' | 'content-only';
  /** Rules that must not come out "passed": the variant gives them no evidence to pass on. */
  notPassed: RuleId[];
}

export const ok = (answer: OutgoingAnswer) => answer.status >= 200 && answer.status < 300;

export const onCheckout =
  (
    format: 'json' | 'xml' | 'any',
    change: (body: string, answer: OutgoingAnswer) => string,
    method?: string,
  ): Rewrite =>
  (answer) =>
    answer.endpoint === 'checkout' &&
    ok(answer) &&
    (format === 'any' || answer.format === format) &&
    (!method || answer.method === method)
      ? { ...answer, body: change(answer.body, answer) }
      : answer;

export const onUpload =
  (format: 'json' | 'xml' | 'any', change: (body: string) => string): Rewrite =>
  (answer) =>
    answer.endpoint === 'upload' && ok(answer) && (format === 'any' || answer.format === format)
      ? { ...answer, body: change(answer.body) }
      : answer;

/** Every answer of checkout and upload in one format, errors included (orders stay as they are). */
export const onResources =
  (format: 'json' | 'xml', change: (answer: OutgoingAnswer) => OutgoingAnswer): Rewrite =>
  (answer) =>
    (answer.endpoint === 'checkout' || answer.endpoint === 'upload') && answer.format === format
      ? change(answer)
      : answer;

/** Several rewrites, one after the other. */
export const rewrites =
  (...all: Rewrite[]): Rewrite =>
  (answer) =>
    all.reduce((current, rewrite) => rewrite(current), answer);

export const XML_DECLARATION = '<?xml version="1.0"?>';
