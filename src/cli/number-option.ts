import { UsageError } from '../findings/usage-error.js';

/** A number option that must be finite and at least `min` (yargs passes NaN for "abc"). */
export function numberOption(value: number, option: string, min = 0): number {
  if (!Number.isFinite(value) || value < min) throw new UsageError(`${option} needs a number of at least ${min}`);
  return value;
}
