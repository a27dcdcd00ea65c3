// The suite's engine: `describe`, `test` and `inject` as the suite files use them, run in the
// tool's own process. A test runner started from node_modules cannot come along in the single
// executable, and it cost the run most of its time (transforming, a worker, its reporters); the
// suite files judge a tally the probes made once, which needs no more than this.

/** What the CLI hands the suite (augmented by provided.ts, as vitest's ProvidedContext was). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in provided.ts
export interface ProvidedContext {}
/** What a test leaves for the CLI to read back (augmented by provided.ts). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in provided.ts
export interface TestMeta {}

export interface TestContext {
  /** The test's own name (a rule ID). */
  name: string;
  meta: TestMeta;
  /** Ends the test as skipped, with the reason. */
  skip(reason: string): never;
}

export interface TestOutcome {
  /** The test's own name (a rule ID). */
  name: string;
  /** The describe blocks it sits in, outermost first (a rule's area). */
  path: string[];
  state: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  message?: string;
  meta: TestMeta;
}

/** Everything a run needs handed over: filled before the suite files are collected. */
export interface SuiteSetup {
  provided: Partial<ProvidedContext>;
  provide<K extends keyof ProvidedContext>(key: K, value: ProvidedContext[K]): void;
}

interface Block {
  name: string;
  body: () => void;
}

interface Collected {
  name: string;
  path: string[];
  body: (context: TestContext) => void | Promise<void>;
}

/** The describe blocks of every suite file loaded, in the order the files were loaded. */
const blocks: Block[] = [];

/** The run being collected. Collection is synchronous, so one at a time even with runs in parallel. */
let collecting: { provided: Partial<ProvidedContext>; path: string[]; tests: Collected[] } | undefined;

class Skipped extends Error {}

/**
 * At a suite file's top level: a named block, collected afresh for every run (so that `inject`
 * reads that run's values). Inside a block: a nested one.
 */
export function describe(name: string, body: () => void): void {
  if (!collecting) {
    blocks.push({ name, body });
    return;
  }
  const outer = collecting.path;
  collecting.path = [...outer, name];
  try {
    body();
  } finally {
    collecting.path = outer;
  }
}

export function test(name: string, body: (context: TestContext) => void | Promise<void>): void {
  if (!collecting) throw new Error(`test "${name}" outside a describe block of a suite file`);
  collecting.tests.push({ name, path: collecting.path, body });
}

/** A value the run provided (the suite's config, the probes' results). */
export function inject<K extends keyof ProvidedContext>(key: K): ProvidedContext[K] {
  if (!collecting) throw new Error(`inject("${String(key)}") outside the collection of a suite file`);
  if (!(key in collecting.provided)) throw new Error(`nothing was provided as "${String(key)}"`);
  return collecting.provided[key] as ProvidedContext[K];
}

function collect(provided: Partial<ProvidedContext>): Collected[] {
  if (collecting) throw new Error('suite collection is not reentrant');
  collecting = { provided, path: [], tests: [] };
  try {
    for (const block of blocks) describe(block.name, block.body);
    return collecting.tests;
  } finally {
    collecting = undefined;
  }
}

async function runOne(test: Collected): Promise<TestOutcome> {
  const meta: TestMeta = {};
  const context: TestContext = {
    name: test.name,
    meta,
    skip(reason) {
      throw new Skipped(reason);
    },
  };
  const outcome = { name: test.name, path: test.path, meta };
  try {
    await test.body(context);
    return { ...outcome, state: 'passed' };
  } catch (error) {
    if (error instanceof Skipped) return { ...outcome, state: 'skipped', message: error.message };
    return { ...outcome, state: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

export interface SuiteRun {
  /** Values for `inject`, before the setup adds its own. */
  provided: Partial<ProvidedContext>;
  /** Runs once before the suite files are collected (the probes), as a global setup does. */
  setup?: (setup: SuiteSetup) => Promise<void>;
  /** Told each test's outcome as it comes. */
  onTestResult?: (outcome: TestOutcome) => void;
}

/**
 * Runs every test of the loaded suite files, one after the other, and gives each one's outcome.
 * The suite files must have been imported (suites/index.ts imports them all).
 */
export async function runSuites(run: SuiteRun): Promise<TestOutcome[]> {
  if (blocks.length === 0) throw new Error('no suite file was loaded');
  const provided: Partial<ProvidedContext> = { ...run.provided };
  await run.setup?.({
    provided,
    provide: (key, value) => {
      provided[key] = value;
    },
  });
  const outcomes: TestOutcome[] = [];
  for (const test of collect(provided)) {
    const outcome = await runOne(test);
    outcomes.push(outcome);
    run.onTestResult?.(outcome);
  }
  return outcomes;
}
