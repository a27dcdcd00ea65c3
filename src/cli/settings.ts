import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { type ConfigContents, type ConfigEntry, checkConfig } from './config-check.js';
import { type OptionSpec, specOf } from './option-specs.js';

// Options come from four places. Highest first:
//   1. the command line;
//   2. environment variables: PRINT_CONFORMANCE_<COMMAND>_<OPTION> (PRINT_CONFORMANCE_PROXY_TARGET),
//      and PRINT_CONFORMANCE_<OPTION> for every command but serve (PRINT_CONFORMANCE_BASE_URL);
//   3. the config file: --config FILE, else the first print-conformance.config.json found from the
//      working folder upward. Its top-level options apply to every command but serve, and a section
//      named after a command ({"proxy": {...}}) applies to that command and wins over the top level;
//   4. the defaults.
// serve plays the service's side: it takes only what is addressed to it, so a client's token set
// for `run` never becomes the token the reference service demands.

export const CONFIG_FILE = 'print-conformance.config.json';
const ENV_PREFIX = 'PRINT_CONFORMANCE_';
const COMMANDS = ['run', 'proxy', 'validate', 'replay', 'report', 'serve', 'rules', 'openapi', 'merge', 'ca'] as const;
/** Options whose values are paths: in a config file they are relative to the file's folder. */
const PATH_OPTIONS = new Set([
  'record',
  'har',
  'summary-md',
  'sarif',
  'report-dir',
  'json-report',
  'junit',
  'allure-dir',
  'order-body',
  'output',
  'files',
  'results',
  'ca-dir',
  'target-ca',
  'bundle',
]);

type Values = Record<string, unknown>;

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const envName = (option: string) => option.toUpperCase().replace(/-/g, '_');

/** A config file larger than this is no config file (a device or a log named so). */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Why a config file found upward is not to be trusted, or undefined. Such a file decides where
 * the token is sent and which rules are skipped, so it is taken only where git or npm would trust
 * it: the user's own file, in the user's (or root's) folder, neither writable by others. A file
 * planted in a shared folder (the temp folder, another user's checkout) is not taken.
 */
function distrust(file: string, uid: number | undefined): string | undefined {
  const link = lstatSync(file);
  const stats = statSync(file);
  if (!stats.isFile()) return 'it is not a regular file';
  // Where the system has no user ids (Windows), ownership says nothing.
  if (uid === undefined) return undefined;
  if (link.uid !== uid || stats.uid !== uid) return 'it belongs to another user';
  if ((stats.mode & 0o022) !== 0) return 'other users may write to it';
  const folder = statSync(dirname(file));
  if (folder.uid !== uid && folder.uid !== 0) return 'its folder belongs to another user';
  if ((folder.mode & 0o022) !== 0) return 'other users may write to its folder';
  return undefined;
}

export interface FoundConfig {
  path?: string;
  /** A config file found upward and not taken, and why. */
  ignored?: { path: string; reason: string };
}

/**
 * The config file named by --config, else the nearest one from `cwd` upward, searched no higher
 * than the repository's root (a folder holding .git) or the home folder.
 */
export function locateConfigFile(args: string[], cwd: string, uid = process.getuid?.()): FoundConfig {
  const index = args.findIndex((arg) => arg === '--config' || arg.startsWith('--config='));
  if (index >= 0) {
    const given = args[index]?.includes('=') ? args[index]?.slice('--config='.length) : args[index + 1];
    if (!given) throw new UsageError('--config needs the path of a JSON file');
    return { path: resolve(cwd, given) };
  }
  const home = resolve(homedir());
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    const candidate = join(folder, CONFIG_FILE);
    if (existsSync(candidate)) {
      const reason = distrust(candidate, uid);
      return reason ? { ignored: { path: candidate, reason } } : { path: candidate };
    }
    if (folder === home || existsSync(join(folder, '.git')) || dirname(folder) === folder) return {};
  }
}

/** The config file named by --config, else the nearest trusted one upward; undefined if none. */
export function findConfigFile(args: string[], cwd: string): string | undefined {
  return locateConfigFile(args, cwd).path;
}

function entriesOf(values: Values): ConfigEntry[] {
  return Object.entries(values).map(([key, value]) => ({ key, name: kebab(key), value }));
}

function readConfigFile(path: string): ConfigContents {
  let text: string;
  try {
    // A FIFO would never end and a device never stop: only a regular file of a config's size is read.
    const stats = statSync(path);
    if (!stats.isFile()) throw new UsageError(`config file ${path}: not a regular file`);
    if (stats.size > MAX_CONFIG_BYTES) throw new UsageError(`config file ${path}: larger than 1 MiB`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`config file ${path}: ${fileProblem(error)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${path}: not JSON (${(error as Error).message})`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new UsageError(`config file ${path}: must hold one JSON object`);
  const top: ConfigEntry[] = [];
  const sections: ConfigContents['sections'] = {};
  for (const [key, value] of Object.entries(data as Values)) {
    if ((COMMANDS as readonly string[]).includes(key)) {
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new UsageError(`config file ${path}: "${key}" must be an object of ${key}'s options`);
      sections[key] = entriesOf(value as Values);
    } else if (key !== '$schema') top.push({ key, name: kebab(key), value });
  }
  return { path, top, sections };
}

let config: ConfigContents | undefined;

/** Reads the config file once, before the commands are built. */
export function loadSettings(args: string[], cwd = process.cwd()): FoundConfig {
  const found = locateConfigFile(args, cwd);
  config = found.path ? readConfigFile(found.path) : undefined;
  return found;
}

/** The config file whose options this process took, to be named where a run says what it runs on. */
export function configFileUsed(): string | undefined {
  return config?.path;
}

/** Refuses a config file with a key no command knows or a value of the wrong type. */
export function checkConfigFile(specs: Map<string, OptionSpec>): void {
  if (config) checkConfig(config, specs);
}

function fromPlace(entries: ConfigEntry[], spec: OptionSpec, baseFolder: string | undefined): Values {
  const out: Values = {};
  for (const { name, value } of entries) {
    if (!spec.names.has(name)) continue;
    if (baseFolder && PATH_OPTIONS.has(name))
      out[name] = Array.isArray(value)
        ? value.map((item) => resolve(baseFolder, String(item)))
        : resolve(baseFolder, String(value));
    // A number given for a text option ("orderId": 123) is the text of that number.
    else if (typeof value === 'number' && !spec.number.has(name)) out[name] = String(value);
    else out[name] = value;
  }
  return out;
}

/**
 * A yes/no option's value in the environment, spelt as CI systems and shells spell it. yargs reads
 * anything but "true" as false, so PRINT_CONFORMANCE_STRICT=1 would silently turn --strict off.
 */
function switchOf(variable: string, value: string): boolean {
  if (/^(?:true|1|yes|on)$/i.test(value.trim())) return true;
  if (/^(?:false|0|no|off)$/i.test(value.trim())) return false;
  throw new UsageError(`${variable}=${value} is not a yes/no value; give true or false (also 1/0, yes/no, on/off)`);
}

function fromEnvironment(command: string, spec: OptionSpec, env: NodeJS.ProcessEnv): Values {
  const out: Values = {};
  for (const option of spec.names) {
    const ownName = `${ENV_PREFIX}${envName(command)}_${envName(option)}`;
    const sharedName = `${ENV_PREFIX}${envName(option)}`;
    const own = env[ownName];
    const shared = command === 'serve' ? undefined : env[sharedName];
    const value = own ?? shared;
    if (value === undefined) continue;
    // An empty value is a variable left unset (a CI input not given): the option is not given. An
    // empty --only stays refused, though: taken as not given, it would widen the run to every rule.
    if (value.trim() === '' && option !== 'only') continue;
    out[option] = spec.boolean.has(option) ? switchOf(own !== undefined ? ownName : sharedName, value) : value;
  }
  return out;
}

/**
 * Gives a command's options their values from the environment and the config file, under what the
 * command line says. Call at the end of the command's builder, once its options are declared.
 */
export function withSettings<T>(y: Argv<T>, command: (typeof COMMANDS)[number], env = process.env): Argv<T> {
  const spec = specOf(y as Argv<unknown>);
  const base = config ? dirname(config.path) : undefined;
  // The file's keys were checked against every command's options by checkConfigFile.
  const values: Values = {
    ...(command === 'serve' ? {} : fromPlace(config?.top ?? [], spec, base)),
    ...fromPlace(config?.sections[command] ?? [], spec, base),
    ...fromEnvironment(command, spec, env),
  };
  return Object.keys(values).length > 0 ? y.config(values) : y;
}
