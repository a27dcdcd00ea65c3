import { UsageError } from '../findings/usage-error.js';

/** A number option that must be finite and at least `min` (yargs passes NaN for "abc"). */
export function numberOption(value: number, option: string, min = 0): number {
  if (!Number.isFinite(value) || value < min) throw new UsageError(`${option} needs a number of at least ${min}`);
  return value;
}

/** A port to listen on, 0 for any free one; yargs reads what is not a number as NaN, which is not echoed. */
export function portOption(value: number, option = '--port'): number {
  if (Number.isNaN(value)) throw new UsageError(`${option} needs a port number from 0 to 65535 (0: any free port)`);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new UsageError(`${option} ${value} is not a port number: it is one from 0 to 65535 (0: any free port)`);
  return value;
}
