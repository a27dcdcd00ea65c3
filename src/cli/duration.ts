import { UsageError } from '../findings/usage-error.js';

const UNIT_MS: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * "10", "10s", "500ms", "5m", "1h", "1d": a duration in milliseconds (a bare number is seconds,
 * as every other time option's), or a usage error naming the option.
 */
export function parseDuration(text: string | number, option: string, min = 0): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/i.exec(String(text));
  const unit = UNIT_MS[match?.[2]?.toLowerCase() ?? 'x'];
  const ms = match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isFinite(ms) || ms < min)
    throw new UsageError(
      `${option} ${text} is not a duration${min > 0 ? ` of at least ${min} ms` : ''} (seconds, or with ms, s, m, h, d: e.g. 10s, 5m, 1h)`,
    );
  return ms;
}
