import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Globals, TestResult, TestResultContainer } from 'allure-js-commons';
import type { Category, EnvironmentInfo } from 'allure-js-commons/sdk';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';

// Allure's result files, written plainly into a staging folder that writeAllureResults then moves
// into place: the staging folder already keeps a half-written set out of sight. allure-js-commons'
// own FileSystemWriter makes each file durable by itself (a temporary file, an fsync, a rename):
// one flush to disk per file, some hundred per run, which cost ~30 ms of a run on this machine's
// disk and more on a laptop's. The files' names and contents are the ones it writes.

export class StagingWriter implements Writer {
  constructor(private readonly folder: string) {}

  writeResult(result: TestResult): void {
    this.json(`${result.uuid}-result.json`, result);
  }

  writeGroup(result: TestResultContainer): void {
    this.json(`${result.uuid}-container.json`, result);
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(join(this.folder, distFileName), content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, join(this.folder, distFileName));
  }

  writeEnvironmentInfo(info: EnvironmentInfo): void {
    writeFileSync(join(this.folder, 'environment.properties'), stringifyEnvInfo(info), 'utf-8');
  }

  writeCategoriesDefinitions(categories: Category[]): void {
    this.json('categories.json', categories);
  }

  writeGlobals(distFileName: string, info: Globals): void {
    this.json(distFileName, info);
  }

  private json(name: string, value: unknown): void {
    writeFileSync(join(this.folder, name), JSON.stringify(value), 'utf-8');
  }
}
