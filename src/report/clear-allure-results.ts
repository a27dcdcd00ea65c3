import { lstatSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

// Allure reads every result in its folder: results of earlier runs would show in the report as
// retries of this one. Each run therefore replaces the Allure files of its folder, and only those.

const ALLURE_FILE =
  /^[0-9a-f-]{36}-(result|container|attachment)\b|^(environment\.properties|categories\.json|executor\.json)$/;

export function clearAllureResults(folder: string): void {
  let names: string[];
  try {
    // A link where the folder goes is removed, not followed: the folder it led to is not this
    // run's to clear, and the results are written into a folder of their own in its place.
    if (lstatSync(folder).isSymbolicLink()) {
      unlinkSync(folder);
      return;
    }
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) if (ALLURE_FILE.test(name)) rmSync(join(folder, name), { force: true });
}
