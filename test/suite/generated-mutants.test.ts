import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GENERATED } from '../../src/cli/generate-options.js';
import type { RuleId } from '../../src/contract/rules.js';
import { discoverUrls } from '../../src/http/discover.js';
import { runGenerated } from '../../src/probes/generated/generated-probes.js';
import { probeService, type SuiteConfig, suiteContext } from '../../src/probes/index.js';
import { ProbeRun } from '../../src/probes/probe-run.js';
import type { Dialect } from '../../src/reference/dialect.js';
import { HttpError } from '../../src/reference/http-error.js';
import { startReferenceService } from '../../src/reference/service.js';
import { emptyTally } from '../../src/validate/tally.js';
import { mergeTallies } from '../../src/validate/tally-merge.js';
import { verdictsOf } from '../../src/validate/verdicts.js';
import { parseXml } from '../../src/validate/xml.js';

// Faults no fixed probe triggers, each as a storage layer, a writer or a reader of a real stack
// gets it wrong for some values only: run --generate at its default finds each within its time
// budget, shrinks it to one request, and reports it under the rule it breaks. The conformant
// service stays clean under many seeds.

const DEFAULT_RUNS = DEFAULT_GENERATED;

type Reader = NonNullable<Dialect['readCheckout']>;

/** A reader that changes every address field the client sent as `change` says. */
const onAddress =
  (change: (value: string) => string): Reader =>
  (model) => {
    const billing = model.billing as { address?: Record<string, unknown> } | undefined;
    const address = billing?.address;
    if (!address || typeof address !== 'object') return model;
    const changed = Object.fromEntries(
      Object.entries(address).map(([field, value]) => [field, typeof value === 'string' ? change(value) : value]),
    );
    return { ...model, billing: { ...billing, address: changed } };
  };

const ADDRESS_TAGS: Record<string, string> = {
  name: 'Name',
  line1: 'Line1',
  postCode: 'PostCode',
  city: 'City',
  country: 'Country',
};

/** An address field's value as lxml's `.text` gives it: the text before the first child node. */
const textUpToMarkup: Reader = (model, text) => {
  if (!text.includes('<Checkout')) return model;
  const billing = model.billing as { address?: Record<string, unknown> } | undefined;
  if (!billing?.address) return model;
  const address = { ...billing.address };
  for (const [field, tag] of Object.entries(ADDRESS_TAGS)) {
    const inner = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)?.[1];
    const cut = inner?.search(/<!--|<\?/) ?? -1;
    if (inner === undefined || cut < 0) continue;
    const parsed = parseXml(`<v>${inner.slice(0, cut)}</v>`);
    if (parsed.ok) address[field] = parsed.root.text;
  }
  return { ...model, billing: { ...billing, address } };
};

/**
 * `fails`: the rule a variant's fault is found under. `orRefused`: a variant whose fault makes a
 * valid set-up too long may get it refused instead, which is filed under the request rule of its
 * format (format.json-request, format.xml-request): either finds it.
 */
const MUTANTS: { name: string; dialect: Partial<Dialect>; fails: RuleId; orRefused?: boolean }[] = [
  {
    name: 'a storage layer that stores characters outside the BMP as "?"',
    dialect: { readCheckout: onAddress((value) => value.replace(/[\u{10000}-\u{10FFFF}]/gu, '?')) },
    fails: 'checkout.echo',
  },
  {
    name: 'a database column that cuts a field at 50 characters',
    dialect: { readCheckout: onAddress((value) => value.slice(0, 50)) },
    fails: 'checkout.echo',
  },
  {
    name: 'a normaliser that rewrites combining marks (NFC)',
    dialect: { readCheckout: onAddress((value) => value.normalize('NFC')) },
    fails: 'checkout.echo',
  },
  {
    name: 'a layer that trims white space around values',
    dialect: { readCheckout: onAddress((value) => value.trim()) },
    fails: 'checkout.echo',
  },
  {
    name: 'a crash on a value longer than 100 characters',
    dialect: {
      readCheckout: onAddress((value) => {
        if (value.length > 100) throw new Error('value too long for its column');
        return value;
      }),
    },
    fails: 'http.no-server-error',
  },
  {
    name: 'an XML reader that drops CDATA sections',
    dialect: {
      readCheckout: (model, text) => (text.includes('<![CDATA[') ? onAddress(() => '')(model, text) : model),
    },
    fails: 'checkout.echo',
  },
  {
    name: 'a JSON reader that mishandles \\u escapes',
    dialect: {
      readCheckout: (model, text) =>
        /\\u00[89a-f]/i.test(text) ? onAddress((value) => value.replace(/[\u0080-\uffff]/g, '?'))(model, text) : model,
    },
    fails: 'checkout.echo',
  },
  {
    name: 'an XML writer that leaves & in the name unescaped',
    dialect: {
      rewrite: (answer) =>
        answer.endpoint === 'checkout' && answer.format === 'xml'
          ? {
              ...answer,
              body: answer.body.replace(
                /<Name>([^<]*)<\/Name>/,
                (_m, name: string) => `<Name>${name.replace(/&amp;/g, '&')}</Name>`,
              ),
            }
          : answer,
    },
    fails: 'format.well-formed',
  },
  {
    // Python's idna codec (or WHATWG URL) applied to the host before storing: bücher.example → xn--bcher-kva.example.
    name: 'a ReturnUrl whose host is stored punycoded (IDN to ASCII)',
    dialect: {
      readCheckout: (model) =>
        typeof model.returnUrl === 'string'
          ? {
              ...model,
              returnUrl: model.returnUrl.replace(/^(https?:\/\/)([^/?#]+)/, (_all, scheme: string, host: string) => {
                const ascii = domainToASCII(host);
                return `${scheme}${ascii || host}`;
              }),
            }
          : model,
    },
    fails: 'checkout.echo',
    // A host punycoded can make a ReturnUrl of 512 units longer: the set-up is then refused.
    orRefused: true,
  },
  {
    name: "lxml's .text: a value read up to the first comment or processing instruction inside it",
    dialect: { readCheckout: textUpToMarkup },
    fails: 'checkout.echo',
  },
  {
    name: 'a form reader that fails on a file name outside ASCII',
    dialect: { multipartFailsOnNonAsciiFilename: true },
    fails: 'http.no-server-error',
  },
];

/** The rule a variant's fault was found under: `fails`, or a request rule when refusals count. */
function foundUnder(failed: readonly RuleId[], fails: RuleId, orRefused = false): RuleId {
  if (failed.includes(fails) || !orRefused) return fails;
  return failed.find((id) => id === 'format.json-request' || id === 'format.xml-request') ?? fails;
}

/** The suite as `run` makes it, in this process: the fixed probes, then (if asked) generated ones. */
async function suiteAgainst(dialect: Partial<Dialect>, generate?: { seed: number; runs: number }) {
  const service = await startReferenceService({ dialect });
  try {
    const urls = await discoverUrls({
      baseUrl: service.baseUrl,
      headers: {},
      secrets: [],
      timeoutMs: 30_000,
      readOnly: false,
    });
    const config: SuiteConfig = {
      baseUrl: service.baseUrl,
      checkoutUrl: urls.checkoutUrl,
      uploadUrls: urls.uploadUrls,
      headers: {},
      credentialHeaders: [],
      secrets: [],
      formats: ['json', 'xml'],
      uploadTypes: ['pdf'],
      selected: [],
      strict: true,
      readOnly: false,
      timeoutMs: 30_000,
      preflight: emptyTally(),
    };
    const run = new ProbeRun(config);
    await probeService(run);
    const report = generate
      ? await runGenerated(run, { ...generate, timeMs: 60_000, maxUploadBytes: 256 * 1024 })
      : undefined;
    const context = {
      ...suiteContext(config),
      selected: new Set(verdictsOf(emptyTally(), { ...suiteContext(config), selected: new Set() }).map((r) => r.id)),
    };
    const rules = verdictsOf(mergeTallies([run.tally.data]), context);
    const failed = rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id);
    return { failed, rules, report };
  } finally {
    await service.close();
  }
}

describe('run --generate', () => {
  it.each(MUTANTS.flatMap((mutant) => [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((seed) => ({ ...mutant, seed }))))(
    'seed $seed: $name',
    async ({ dialect, fails, orRefused, seed }) => {
      const generated = await suiteAgainst(dialect, { seed, runs: DEFAULT_RUNS });
      expect(generated.failed).toContainEqual(foundUnder(generated.failed, fails, orRefused));
    },
  );
  it.each(MUTANTS)('finds $name, which the fixed probes miss, under $fails', async ({ dialect, fails, orRefused }) => {
    const fixed = await suiteAgainst(dialect);
    expect(fixed.failed).toEqual([]);
    const generated = await suiteAgainst(dialect, { seed: 1, runs: DEFAULT_RUNS });
    const rule = foundUnder(generated.failed, fails, orRefused);
    expect(generated.failed).toContain(rule);
    expect(generated.report?.failures.length, JSON.stringify(generated.report)).toBeGreaterThan(0);
    const finding = generated.rules.find((found) => found.id === rule)?.failures[0];
    expect(finding?.message).toMatch(/\[generated \(.+\), shrunk in \d+ steps; --generate 100 --seed 1 repeats it\]/);
    expect(finding?.exchange.curl).toMatch(/(^|\| )curl /);
  });

  it('files a refused valid set-up under what valid set-ups must get, not under the ReturnUrl bounds it keeps', async () => {
    // A hand-written URL pattern that takes no fragment: a ReturnUrl of the right length refused 422.
    const noFragments = {
      readCheckout: (model: Record<string, unknown>) => {
        if (typeof model.returnUrl === 'string' && model.returnUrl.includes('#'))
          throw new HttpError(422, 'returnUrl is not a URL');
        return model;
      },
    };
    const generated = await suiteAgainst(noFragments, { seed: 1, runs: DEFAULT_RUNS });
    expect(generated.failed.filter((id) => id === 'format.json-request' || id === 'format.xml-request')).not.toEqual(
      [],
    );
    expect(generated.failed).not.toContain('checkout.return-url.length');
  });

  it.each([11, 12, 13, 14, 15])('leaves the conformant service clean (seed %i)', async (seed) => {
    const generated = await suiteAgainst({}, { seed, runs: DEFAULT_RUNS });
    expect(generated.failed).toEqual([]);
    expect(generated.report?.failures).toEqual([]);
    expect(generated.report?.ran).toBe(DEFAULT_RUNS);
  });
});
