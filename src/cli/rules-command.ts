import type { Argv } from 'yargs';
import { RULES } from '../contract/rules.js';
import { rulesMarkdown } from '../contract/rules-markdown.js';
import { withSettings } from './settings.js';

export function rulesCommand(yargs: Argv) {
  return yargs.command(
    'rules',
    'List the rule catalog: ID, severity, seed section and what holds',
    (y) =>
      withSettings(
        y
          .option('json', { type: 'boolean', default: false, describe: 'Print the catalog as JSON' })
          .option('markdown', {
            type: 'boolean',
            default: false,
            describe: 'Print the catalog as Markdown (docs/rules.md)',
          }),
        'rules',
      ),
    (argv) => {
      if (argv.markdown) {
        process.stdout.write(rulesMarkdown());
        return;
      }
      if (argv.json) {
        process.stdout.write(`${JSON.stringify(RULES, null, 2)}\n`);
        return;
      }
      const idWidth = Math.max(...RULES.map((rule) => rule.id.length));
      const seedWidth = Math.max(...RULES.map((rule) => rule.seed.length));
      const lines = RULES.map(
        (rule) =>
          `${rule.id.padEnd(idWidth)}  ${rule.severity.padEnd(8)}  ${rule.seed.padEnd(seedWidth)}  ${rule.title}`,
      );
      const head = `${'ID'.padEnd(idWidth)}  ${'SEVERITY'.padEnd(8)}  ${'SEED'.padEnd(seedWidth)}  WHAT HOLDS`;
      process.stdout.write(`${[head, ...lines].join('\n')}\n`);
    },
  );
}
