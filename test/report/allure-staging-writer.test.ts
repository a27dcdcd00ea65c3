import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stage, Status } from 'allure-js-commons';
import { FileSystemWriter, ReporterRuntime, type Writer } from 'allure-js-commons/sdk/reporter';
import { afterAll, describe, expect, it } from 'vitest';
import { StagingWriter } from '../../src/report/allure-staging-writer.js';

// The staging writer leaves out allure-js-commons' flush of each file to disk, nothing else: the
// same run written by both gives the same files with the same contents.

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One test with a step and an attachment, an environment and categories, written by `writer`. */
function written(makeWriter: (folder: string) => Writer): Map<string, string> {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-allure-writer-'));
  folders.push(folder);
  const runtime = new ReporterRuntime({
    writer: makeWriter(folder),
    environmentInfo: { 'print-conformance': '0.1.0', target: 'https://api.example.test/v2/' },
    categories: [{ name: 'Broken rules', matchedStatuses: [Status.FAILED] }],
  });
  const uuid = runtime.startTest({ name: 'checkout.echo', status: Status.FAILED, stage: Stage.FINISHED, start: 1 });
  runtime.writeAttachment(uuid, null, 'exchange 1', Buffer.from('{"a":1}'), { contentType: 'application/json' });
  const step = runtime.startStep(uuid, undefined, { name: 'json: failed', start: 1 });
  if (step) runtime.stopStep(step, { stop: 2 });
  runtime.stopTest(uuid, { stop: 2 });
  runtime.writeTest(uuid);
  runtime.writeEnvironmentInfo();
  runtime.writeCategoriesDefinitions();
  const source = join(folder, '..', `${folders.length}-attachment.txt`);
  writeFileSync(source, 'from a file');
  folders.push(source);
  makeWriter(folder).writeAttachmentFromPath('copied-attachment.txt', source);
  return new Map(
    readdirSync(folder).map((name) => [
      name.replace(UUID, '{uuid}'),
      readFileSync(join(folder, name), 'utf8').replace(UUID, '{uuid}'),
    ]),
  );
}

describe('the staging writer of Allure results', () => {
  it("writes the files allure-js-commons' own writer writes, with the same contents", () => {
    const ours = written((folder) => new StagingWriter(folder));
    const theirs = written((folder) => new FileSystemWriter({ resultsDir: folder }));
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    expect([...ours.keys()]).toEqual(
      expect.arrayContaining([
        '{uuid}-result.json',
        '{uuid}-attachment.json',
        'environment.properties',
        'categories.json',
        'copied-attachment.txt',
      ]),
    );
    for (const [name, text] of theirs) expect(ours.get(name), name).toBe(text);
  });
});
