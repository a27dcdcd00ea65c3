import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

// Rotated recordings are named by their start time in UTC before the extension:
// traffic.ndjson → traffic-20261128T172900Z.ndjson (and ….ndjson.gz once compressed), so that
// name order is time order, for ls as for `validate FOLDER`.

/** 20261128T172900Z */
export function utcStamp(time: Date): string {
  return time
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * The name a recording begun at `started` takes when rotated; `taken` says a name is in use, and
 * `after` is the name the previous rotation took: within one second, the later one is numbered
 * after it, behind a character that sorts after "." so that name order stays time order (even once
 * older files are pruned and their names are free again).
 */
export function rotatedName(file: string, started: Date, taken: (name: string) => boolean, after?: string): string {
  const extension = extname(file);
  const stem = file.slice(0, file.length - extension.length);
  const base = `${stem}-${utcStamp(started)}`;
  const numbered = (n: number) =>
    n === 0 ? `${base}${extension}` : `${base}_${String(n).padStart(3, '0')}${extension}`;
  let n = 0;
  if (after?.startsWith(base)) n = Number(/_(\d+)[^_]*$/.exec(after.slice(base.length))?.[1] ?? 0) + 1;
  while (taken(numbered(n)) || taken(`${numbered(n)}.gz`)) n += 1;
  return numbered(n);
}

/** The rotated recordings of `file` in its folder, oldest first. */
export function rotatedFiles(file: string): string[] {
  const extension = extname(file);
  const stem = basename(file, extension);
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped(stem)}-\\d{8}T\\d{6}Z(?:_\\d+)?${escaped(extension)}(?:\\.gz)?$`);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((name) => pattern.test(name) && !name.endsWith('.tmp'))
    .sort()
    .map((name) => join(dirname(file), name));
}
