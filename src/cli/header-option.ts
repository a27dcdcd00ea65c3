import { UsageError } from '../findings/usage-error.js';

// --header "Name: value", as run and replay take it: names lower-case, values trimmed.

export function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${value}" is not "Name: value"`);
    headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}
