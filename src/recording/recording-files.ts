import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../findings/usage-error.js';

// `validate` and `replay` take folders as well as files: a folder stands for its recordings
// (.ndjson, .ndjson.gz, .har) in name order, which for rotated recordings is time order.

const RECORDING_NAME = /\.(?:ndjson|ndjson\.gz|har)$/i;

/** The files named, each folder replaced by its recordings in name order. */
export function expandRecordingFolders(given: readonly string[]): string[] {
  const files: string[] = [];
  for (const name of given) {
    let folder = false;
    try {
      folder = statSync(name).isDirectory();
    } catch {
      // Not there: the reading says so in its own words.
    }
    if (!folder) {
      files.push(name);
      continue;
    }
    const inside = readdirSync(name)
      .filter((entry) => RECORDING_NAME.test(entry))
      .sort()
      .map((entry) => join(name, entry))
      .filter((path) => statSync(path).isFile());
    if (inside.length === 0)
      throw new UsageError(`${name} is a folder with no recording in it (.ndjson, .ndjson.gz or .har files)`);
    files.push(...inside);
  }
  return files;
}
