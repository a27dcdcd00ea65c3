import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { type CliResult, runCli, startListeningCli } from '../helpers/cli.js';

// Every artefact a day of use leaves behind (recordings, HAR, reports, Allure results, summaries,
// console output and logs) is searched for the credentials that were used in it.

const TOKEN = 'st4tic-b3arer-Qx81';
const CLIENT_SECRET = 'cl1ent-s3cret-Wz42';
const WRONG_TOKEN = 'wr0ng-t0ken-Jk77';

let folder: string;
let service: ReferenceService;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-secrets-'));
  service = await startReferenceService({ token: TOKEN, clientId: 'acme', clientSecret: CLIENT_SECRET });
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('secrets', () => {
  it('appear in no recording, HAR, report, summary, log or console output', async () => {
    const at = (name: string) => join(folder, name);
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--record',
      at('traffic.ndjson'),
      '--har',
      at('traffic.har'),
      '--summary-md',
      at('summary.md'),
    ]);
    const outputs: CliResult[] = [];
    const withToken = await runCli(['--base-url', proxy.url, '--token', TOKEN, '--report-dir', at('run-token')]);
    const withClient = await runCli([
      '--base-url',
      proxy.url,
      '--client-id',
      'acme',
      '--client-secret',
      CLIENT_SECRET,
      '--report-dir',
      at('run-client'),
      '--reporter',
      'github',
    ]);
    // The credentials worked: the runs got past authentication and judged the service.
    expect(withToken.stdout).toMatch(/\d+ passed/);
    expect(withClient.stdout).toMatch(/\d+ passed/);
    const refused = await runCli(['--base-url', proxy.url, '--token', WRONG_TOKEN, '--report-dir', at('run-wrong')]);
    expect(refused.code).not.toBe(0);
    // A client that puts its token in the query string.
    const queried = await request(`${proxy.url}orders?access_token=${TOKEN}`, { method: 'POST' });
    await queried.body.dump();
    outputs.push(withToken, withClient, refused, await proxy.stop());
    for (const [file, dir] of [
      ['traffic.ndjson', 'validate-ndjson'],
      ['traffic.har', 'validate-har'],
    ] as const)
      outputs.push(await runCli(['validate', at(file), '--report-dir', at(dir), '--reporter', 'github']));

    const artefacts = filesUnder(folder);
    expect(artefacts.map((file) => file.slice(folder.length + 1))).toEqual(
      expect.arrayContaining([
        'traffic.ndjson',
        'traffic.har',
        'summary.md',
        'run-token/results.json',
        'run-client/junit.xml',
        'validate-har/results.json',
      ]),
    );
    expect(artefacts.some((file) => file.includes('allure-results'))).toBe(true);
    const texts = [
      ...artefacts.map((file) => ({ where: file, text: readFileSync(file, 'latin1') })),
      ...outputs.flatMap((output, index) => [
        { where: `stdout ${index}`, text: output.stdout },
        { where: `stderr ${index}`, text: output.stderr },
      ]),
    ];
    for (const { where, text } of texts)
      for (const secret of [TOKEN, CLIENT_SECRET, WRONG_TOKEN])
        expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    // Not vacuous: the recording holds the credentials' places, filtered.
    expect(readFileSync(at('traffic.ndjson'), 'utf8')).toContain('[Filtered]');
  });
});
