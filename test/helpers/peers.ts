import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// The real clients the tests put behind the proxy, as this machine has them (.ci/run installs
// Debian's packages when they are missing).

/** Whether a program is on PATH. */
export function onPath(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** PHP with its curl extension, as the official client needs it. */
export const HAS_PHP_CURL = (() => {
  try {
    return (
      execFileSync('php', ['-r', 'echo function_exists("curl_init") ? "yes" : "no";'], { encoding: 'utf8' }) === 'yes'
    );
  } catch {
    return false;
  }
})();

/** Debian's python3 is the one python3-requests installs into; a python3 of another make may lack it. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

export const HAS_PYTHON_REQUESTS = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import requests'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
