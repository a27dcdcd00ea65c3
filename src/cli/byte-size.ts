import { UsageError } from '../findings/usage-error.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** "2GiB", "512MiB", "1000000": a size in bytes, or a usage error naming the option. */
export function parseByteSize(text: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || unit === undefined)
    throw new UsageError(`${option} ${text} is not a size (e.g. 2GiB, 500MiB, 1048576)`);
  return Math.floor(Number(match[1]) * unit);
}
