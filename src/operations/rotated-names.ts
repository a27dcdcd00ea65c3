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

/** The name a recording begun at `started` takes when rotated; `taken` says a name is in use. */
export function rotatedName(file: string, started: Date, taken: (name: string) => boolean): string {
  const extension = extname(file);
  const stem = file.slice(0, file.length - extension.length);
  const base = `${stem}-${utcStamp(started)}`;
  let name = `${base}${extension}`;
  // Two rotations within a second (a small --rotate-size): the later one is numbered.
  for (let n = 1; taken(name) || taken(`${name}.gz`); n += 1) name = `${base}-${n}${extension}`;
  return name;
}

/** The rotated recordings of `file` in its folder, oldest first. */
export function rotatedFiles(file: string): string[] {
  const extension = extname(file);
  const stem = basename(file, extension);
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped(stem)}-\\d{8}T\\d{6}Z(?:-\\d+)?${escaped(extension)}(?:\\.gz)?$`);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((name) => pattern.test(name) && !name.endsWith('.tmp'))
    .sort(byStamp)
    .map((name) => join(dirname(file), name));
}

/** Name order, with traffic-…Z-2 after traffic-…Z-1 and both after traffic-…Z. */
function byStamp(a: string, b: string): number {
  const key = (name: string) =>
    name.replace(/Z(?:-(\d+))?(\.[^Z]*)$/, (_, n: string | undefined) => `Z-${(n ?? '0').padStart(6, '0')}`);
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
