// Before anything else, so that its worker threads boot while the rest loads.
import './early-start.js';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { UsageError } from '../findings/usage-error.js';
import { STDIN } from '../recording/read-exchanges.js';
import { givenSecrets, withoutLiterals } from '../redaction/index.js';
import { terminalText } from '../report/terminal-text.js';
import { caCommand } from './ca-command.js';
import { examplesOnTheirOwnLines } from './help-examples.js';
import { skipHelpRendering } from './help-rendering.js';
import { versionText } from './how-started.js';
import { invalidChoice } from './invalid-choice.js';
import { mergeCommand } from './merge-command.js';
import { openapiCommand } from './openapi-command.js';
import { commandSpecs, type OptionSpec } from './option-specs.js';
import { proxyCommand } from './proxy-command.js';
import { replayCommand } from './replay-command.js';
import { reportCommand } from './report-command.js';
import { rulesCommand } from './rules-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';
import { CONFIG_FILE, checkConfigFile, loadSettings } from './settings.js';
import { unknownArguments } from './unknown-arguments.js';
import { validateCommand } from './validate-command.js';
import { clearPreviousReports, type ReportPlaceOptions } from './writable.js';

// Exit codes are a contract (CLI.md): 0 every rule held, 1 a rule failed, 2 the run could not be
// made. Anything thrown while setting up is turned into one line on stderr and exit 2.

const debug = process.argv.includes('--debug');

/** The commands that write results.json, junit.xml and the other reports of a verdict. */
const REPORTING_COMMANDS = new Set(['run', 'validate', 'replay', 'merge', 'proxy']);

function fail(message: string, error?: unknown): never {
  // One line, always: scripts read it, and yargs writes some complaints over several.
  // The message may quote a service's answer or a recording: nothing in it acts on the terminal.
  // A service may echo the user's credentials in what the message quotes: they are left out too.
  const shown = withoutLiterals(message.replace(/\s*\n\s*/g, ' '), givenSecrets());
  process.stderr.write(`print-conformance: ${terminalText(shown)}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(2);
}

const args = hideBin(process.argv);
try {
  const { ignored } = loadSettings(args);
  if (ignored)
    process.stderr.write(
      `print-conformance: warning: ${ignored.path} is not used: ${ignored.reason}; name it with --config to use it\n`,
    );
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}

const HELP_WIDTH = Math.min(110, process.stdout.columns || 110);

// Every command's options, learnt before parsing (yargs then enters the command's own context).
let specs = new Map<string, OptionSpec>();

// `validate -` reads standard input (and `replay -` is told it cannot); yargs would drop a lone "-", so it is named as a path first.
const command = args.find((arg) => !arg.startsWith('-'));
const cli = yargs(
  command === 'validate' || command === 'replay' ? args.map((arg) => (arg === '-' ? STDIN : arg)) : args,
)
  .scriptName('print-conformance')
  .usage(
    '$0 [command] [options]\n\nChecks that a print ordering service speaks its checkout and upload interface exactly as described.',
  )
  .version(versionText())
  // yargs would speak the system's language; every other line of the tool is English.
  .locale('en')
  .option('debug', { type: 'boolean', describe: 'Print stack traces of unexpected errors', global: true })
  .option('config', {
    type: 'string',
    global: true,
    describe: `JSON file of option values (default: the nearest ${CONFIG_FILE} upward)`,
  })
  .epilogue(
    `Every option can also come from the environment, as PRINT_CONFORMANCE_<COMMAND>_<OPTION> or (for all commands but serve) PRINT_CONFORMANCE_<OPTION>, e.g. PRINT_CONFORMANCE_BASE_URL, and from a config file (--config, or the nearest ${CONFIG_FILE} upward). The command line wins over the environment, which wins over the file.\n\nExit codes: 0 every selected must rule was tested and held (with --strict, every should rule too), 1 a rule failed or a selected must rule could not be tested (untested), 2 the run could not be made or is incomplete (a bad option, an unreachable service, every request refused with 401/403, a file that cannot be read or written, an interrupt); one line on stderr says why.`,
  )
  .strict()
  .recommendCommands()
  .help()
  .alias('h', 'help')
  .wrap(HELP_WIDTH)
  .fail((message, error) => {
    // yargs' own complaints (unknown option, missing value) come without an error object.
    if (error) fail(error.message, error instanceof UsageError ? undefined : error);
    fail(`${unknownArguments(message, args, specs) ?? invalidChoice(message) ?? message}; see --help`);
  });

// A run that cannot be made leaves no report, never the last run's posing as its own (CLI.md,
// Reports): the reports at this run's places go before its options are checked, by yargs (an
// unknown choice) or by the command. Asking for help or the version changes nothing.
cli.middleware((argv) => {
  const name = String(argv._[0] ?? 'run');
  if (!REPORTING_COMMANDS.has(name) || argv.help || argv.version) return;
  try {
    clearPreviousReports(argv as unknown as ReportPlaceOptions);
  } catch {
    // A place that cannot be cleared is one the command itself refuses, in its own words.
  }
}, true);

examplesOnTheirOwnLines(cli, HELP_WIDTH);
runCommand(cli);
rulesCommand(cli);
openapiCommand(cli);
serveCommand(cli);
proxyCommand(cli);
validateCommand(cli);
replayCommand(cli);
mergeCommand(cli);
reportCommand(cli);
caCommand(cli);

skipHelpRendering(cli);

try {
  specs = commandSpecs(cli);
  checkConfigFile(specs);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), error);
}

try {
  await cli.parseAsync();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), error);
}
