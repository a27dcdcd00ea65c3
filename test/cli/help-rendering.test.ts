import { describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { skipHelpRendering } from '../../src/cli/help-rendering.js';

type Internals = { getInternalMethods: () => { getUsageInstance: () => { hasCachedHelpMessage: () => boolean } } };

async function helpRenderedOnStart(skip: boolean): Promise<boolean> {
  let ran = false;
  const cli = yargs(['work', '--size', '3'])
    .command(
      'work',
      'does some work',
      (inner) => inner.option('size', { type: 'number', describe: 'how much' }),
      async () => {
        ran = true;
      },
    )
    .help();
  if (skip) skipHelpRendering(cli);
  await cli.parseAsync();
  expect(ran).toBe(true);
  return (cli as unknown as Internals).getInternalMethods().getUsageInstance().hasCachedHelpMessage();
}

describe('a command starting', () => {
  // yargs renders the command's whole help as it starts it; this tool never shows it from there.
  it('does not render its help first (and yargs still has the step that did)', async () => {
    expect(await helpRenderedOnStart(false)).toBe(true);
    expect(await helpRenderedOnStart(true)).toBe(false);
  });
});
