import { join } from 'node:path';
import { type CliResult, runCli } from '../helpers/cli.js';

// The scripted client (client.mjs, one behaviour per mode) run behind `proxy --target … --`, as a
// client team runs its tests behind the proxy: the scenario, recording and replay tests share it.

export const CLIENT = join(import.meta.dirname, 'client.mjs');

/** Runs the client in `mode` behind a proxy of `target`, with the proxy options given (--record, …). */
export function clientBehindProxy(target: string, mode: string, proxyOptions: string[]): Promise<CliResult> {
  return runCli([
    'proxy',
    '--target',
    target,
    '--summary-interval',
    '0',
    ...proxyOptions,
    '--',
    process.execPath,
    CLIENT,
    mode,
  ]);
}
