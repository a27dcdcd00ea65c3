import { randomInt } from 'node:crypto';
import { UsageError } from '../findings/usage-error.js';
import type { GenerateOptions } from '../probes/generated/generated-probes.js';

// --generate [N], --seed S, --generate-time SECONDS: how many generated tests, from which seed,
// in how much time. A CI job can afford the default: a minute at most, most of it unused.

export const DEFAULT_GENERATED = 100;
/** The largest generated upload: enough to cross a service's first buffer, small enough for CI. */
const MAX_UPLOAD_BYTES = 256 * 1024;

export function generateOptions(options: {
  generate?: string;
  seed?: string;
  generateTime?: number;
}): GenerateOptions | undefined {
  if (options.generate === undefined) {
    if (options.seed !== undefined) throw new UsageError('--seed needs --generate: it repeats a generated run');
    return undefined;
  }
  const text = String(options.generate).trim();
  const runs = text === '' || text === 'true' ? DEFAULT_GENERATED : Number(text);
  if (!Number.isInteger(runs) || runs < 1)
    throw new UsageError(
      `--generate ${options.generate} is not a number of tests, e.g. --generate ${DEFAULT_GENERATED}`,
    );
  const seedText = options.seed === undefined ? undefined : String(options.seed).trim();
  const seed = seedText === undefined ? randomInt(2 ** 31) : Number(seedText);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed >= 2 ** 31)
    throw new UsageError(`--seed ${options.seed} is not a whole number from 0 to 2147483647`);
  const seconds = options.generateTime ?? 60;
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--generate-time ${options.generateTime} is not a number of seconds above 0`);
  return { runs, seed, timeMs: seconds * 1000, maxUploadBytes: MAX_UPLOAD_BYTES };
}
