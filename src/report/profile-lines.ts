// The service profile (what the observe rules recorded) as lines a person reads: one rule per
// heading, its findings as "what: value" lines, lists joined, never raw JSON.

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object'))
    return value.map(scalar).join('; ');
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${key} ${scalar(item)}`)
    .join(', ');
}

function valueLines(value: unknown, indent: string): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).map(([key, item]) => `${indent}${key}: ${scalar(item)}`);
  }
  if (Array.isArray(value)) return value.map((item) => `${indent}${scalar(item)}`);
  return [`${indent}${scalar(value)}`];
}

export function profileLines(profile: Record<string, unknown>, indent = '  '): string[] {
  return Object.entries(profile).flatMap(([id, value]) => [`${indent}${id}`, ...valueLines(value, `${indent}  `)]);
}
