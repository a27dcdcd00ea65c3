import fc from 'fast-check';
import type { RuleId } from '../../contract/rules.js';
import type { GeneratedSummary } from '../../findings/types.js';
import { send } from '../../http/send.js';
import type { Exchange, Violation } from '../../validate/exchange.js';
import { expectAnswer } from '../../validate/expectations.js';
import { CheckoutState, judgeExchange } from '../../validate/index.js';
import { type Format, MEDIA_TYPE_OF } from '../config.js';
import type { ProbeRun, RecordOptions } from '../probe-run.js';
import { type JsonSpelling, jsonSpelling, writeJson, writeXml, type XmlSpelling, xmlSpelling } from './spellings.js';
import {
  type GeneratedUpload,
  generatedUpload,
  type RefusedUpload,
  refusedUpload,
  refusedUploadBody,
  uploadBody,
} from './uploads.js';
import { address, invalidReturnUrl, validReturnUrl } from './values.js';

// Generated tests: after the fixed probes, checkout set-ups and uploads drawn from the description
// (valid and invalid, JSON and XML, in the spellings a parser must read alike), each judged by the
// same core under the existing rules. A failure is shrunk by fast-check to a minimal request and
// recorded like any finding, naming the seed that repeats the run request for request.

export interface GenerateOptions {
  /** Generated cases in all: set-ups and uploads. */
  runs: number;
  seed: number;
  /** The time the generated tests may take in all, in milliseconds. */
  timeMs: number;
  /** The largest generated upload. */
  maxUploadBytes: number;
}

export type GeneratedReport = GeneratedSummary;

/** One request of a case and how the suite judges it. */
interface Step {
  exchange: Exchange;
  options: RecordOptions;
}

/** Rules whose refusals each step judges by its expectation, as the fixed probes do. */
const REFUSALS_JUDGED_BY_STEPS: RuleId[] = ['format.xml-request', 'format.json-request', 'checkout.return-url.length'];

/** What a case broke, judged as the suite judges (the service's side only), without recording it. */
function brokenBy(steps: Step[]): Violation[] {
  const state = new CheckoutState();
  const broken: Violation[] = [];
  for (const { exchange, options } of steps) {
    const refused = (exchange.response?.status ?? 0) >= 400;
    const ignored = new Set<RuleId>([...(options.ignore ?? []), ...(refused ? REFUSALS_JUDGED_BY_STEPS : [])]);
    for (const violation of judgeExchange(exchange, state).violations)
      if (violation.side === 'response' && violation.severity !== 'observe' && !ignored.has(violation.rule))
        broken.push(violation);
    if (!exchange.response)
      broken.push({
        rule: 'http.no-server-error',
        severity: 'must',
        side: 'response',
        message: `no answer: ${exchange.error}`,
      });
    const expected = options.expect;
    const unmet = expected && expectAnswer(exchange, expected.rule, expected.answer, expected.what);
    if (unmet) broken.push(unmet);
  }
  return broken;
}

interface SetUp {
  format: Format;
  returnUrl: string;
  address: Record<string, string>;
  xml: XmlSpelling;
  json: JsonSpelling;
}

function setUpBody(setUp: SetUp): string {
  const model = { returnUrl: setUp.returnUrl, billing: { address: setUp.address } };
  return setUp.format === 'json' ? writeJson(model, setUp.json) : writeXml('checkout-request', model, setUp.xml);
}

const setUps = (format: Format, returnUrl: fc.Arbitrary<string>) =>
  fc.record({ format: fc.constant(format), returnUrl, address, xml: xmlSpelling, json: jsonSpelling });

interface Property<T> {
  name: string;
  /** Its share of the cases: valid set-ups, where most faults hide, get the most. */
  weight: number;
  arbitrary: fc.Arbitrary<T>;
  steps: (value: T) => Promise<Step[]>;
}

export async function runGenerated(run: ProbeRun, options: GenerateOptions): Promise<GeneratedReport> {
  const { config } = run;
  const timeoutMs = config.timeoutMs;
  const exchange = (method: string, url: string, headers: Record<string, string>, body?: Buffer | string) =>
    send(
      { method, url, headers: { ...config.headers, ...headers }, ...(body === undefined ? {} : { body }) },
      undefined,
      timeoutMs,
    );

  const checkoutSteps = async (setUp: SetUp, valid: boolean): Promise<Step[]> => {
    const type = MEDIA_TYPE_OF[setUp.format];
    const what = `a generated ${valid ? 'valid' : 'invalid'} ${setUp.format.toUpperCase()} set-up`;
    // A refused valid set-up breaks what valid set-ups must get, not the ReturnUrl's bounds (which it
    // keeps): the rule of requests in its format.
    const rule: RuleId = !valid
      ? 'checkout.return-url.length'
      : setUp.format === 'xml'
        ? 'format.xml-request'
        : 'format.json-request';
    const post = await exchange('POST', config.checkoutUrl, { accept: type, 'content-type': type }, setUpBody(setUp));
    const steps: Step[] = [
      {
        exchange: post,
        options: { format: setUp.format, expect: { rule, answer: valid ? 'accepted' : 'rejected', what } },
      },
    ];
    // Read back what was set: a storage layer that mangles a value shows here if not in the echo.
    if (valid && post.response && post.response.status < 300)
      steps.push({
        exchange: await exchange('GET', config.checkoutUrl, { accept: type }),
        options: { format: setUp.format },
      });
    return steps;
  };
  const uploadUrl = config.uploadUrls.content ?? config.uploadUrls.cover;
  const uploadSteps = async (upload: GeneratedUpload & { format: Format }): Promise<Step[]> => {
    if (!uploadUrl) return [];
    const { body, contentType } = uploadBody(upload);
    const answer = await exchange(
      'POST',
      uploadUrl,
      { accept: MEDIA_TYPE_OF[upload.format], 'content-type': contentType },
      body,
    );
    const rule: RuleId = upload.multipart ? 'upload.multipart' : 'upload.raw';
    // The description sets no size limit: a 413 is the service's limit, noted in its profile.
    if (answer.response?.status === 413)
      return [
        {
          exchange: answer,
          options: { format: upload.format, refusalObserved: 'POST files of a generated upload refused as too large' },
        },
      ];
    return [
      {
        exchange: answer,
        options: {
          format: upload.format,
          expect: {
            rule,
            answer: 'accepted',
            what: `a generated ${upload.multipart ? 'multipart' : 'raw'} PDF upload of ${upload.size} bytes`,
          },
        },
      },
    ];
  };

  const refusedUploadSteps = async (upload: RefusedUpload & { format: Format }): Promise<Step[]> => {
    if (!uploadUrl) return [];
    const { body, contentType } = refusedUploadBody(upload);
    const headers = { accept: MEDIA_TYPE_OF[upload.format], 'content-type': contentType };
    const answer = await exchange('POST', uploadUrl, headers, body);
    const what = `a generated upload of ${body.length} bytes declared ${upload.type}${upload.multipart ? ' (multipart)' : ''}`;
    return [
      {
        exchange: answer,
        options: { format: upload.format, expect: { rule: 'upload.content-type', answer: 'rejected', what } },
      },
    ];
  };

  const properties: Property<never>[] = [];
  const add = <T>(property: Property<T>) => properties.push(property as unknown as Property<never>);
  if (!config.readOnly) {
    for (const format of config.formats) {
      add({
        name: `valid ${format} set-ups`,
        weight: 3,
        arbitrary: setUps(format, validReturnUrl),
        steps: (s) => checkoutSteps(s, true),
      });
      add({
        name: `invalid ${format} set-ups`,
        weight: 1,
        arbitrary: setUps(format, invalidReturnUrl),
        steps: (s) => checkoutSteps(s, false),
      });
    }
    if (uploadUrl)
      add({
        name: 'uploads',
        weight: 2,
        arbitrary: fc
          .tuple(generatedUpload(options.maxUploadBytes), fc.constantFrom(...config.formats))
          .map(([upload, format]) => ({ ...upload, format })),
        steps: uploadSteps,
      });
    if (uploadUrl)
      add({
        name: 'uploads of types to refuse',
        weight: 1,
        arbitrary: fc
          .tuple(refusedUpload, fc.constantFrom(...config.formats))
          .map(([upload, format]) => ({ ...upload, format })),
        steps: refusedUploadSteps,
      });
  }

  const report: GeneratedReport = { seed: options.seed, ran: 0, asked: options.runs, interrupted: false, failures: [] };
  if (properties.length === 0) return report;
  const started = performance.now();
  const weights = properties.reduce((sum, property) => sum + property.weight, 0);
  const shares = properties.map((property) => Math.floor((options.runs * property.weight) / weights));
  // What rounding left over goes to the first properties, so that the shares add up to the runs asked.
  for (let index = 0; shares.reduce((a, b) => a + b, 0) < options.runs; index += 1)
    shares[index % shares.length] = (shares[index % shares.length] as number) + 1;
  for (const [index, property] of properties.entries()) {
    const share = shares[index] as number;
    const left = options.timeMs - (performance.now() - started);
    if (share === 0) continue;
    if (left <= 0) {
      report.interrupted = true;
      break;
    }
    run.progress(`generated: ${property.name} (${share})`);
    let last: { steps: Step[]; broken: Violation[] } | undefined;
    const result = await fc.check(
      fc.asyncProperty(property.arbitrary, async (value) => {
        const steps = await property.steps(value);
        const broken = brokenBy(steps);
        if (broken.length > 0) {
          last = { steps, broken };
          return false;
        }
        // A case that held is evidence like any probe's exchange.
        for (const step of steps) run.record(step.exchange, step.options);
        return true;
      }),
      { seed: options.seed + index, numRuns: share, interruptAfterTimeLimit: left, markInterruptAsFailure: false },
    );
    report.ran += result.numRuns;
    if (result.interrupted) report.interrupted = true;
    if (!result.failed || !last) continue;
    // The last failing case is the shrunk one: it alone is recorded, with the seed named.
    const before = run.tally.data.findings.length;
    for (const step of last.steps) run.record(step.exchange, step.options);
    const note = ` [generated (${property.name}), shrunk in ${result.numShrinks} steps; --generate ${options.runs} --seed ${options.seed} repeats it]`;
    for (const finding of run.tally.data.findings.slice(before)) finding.message += note;
    const first = last.broken[0] as Violation;
    report.failures.push({
      property: property.name,
      rule: first.rule,
      message: first.message,
      shrinks: result.numShrinks,
    });
  }
  return report;
}
