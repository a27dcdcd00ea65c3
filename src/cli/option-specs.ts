import yargs, { type Argv } from 'yargs';

// What each command accepts, read from the options its builder declares, so that a config file
// and the command line are checked against the same declarations the commands parse with.

export interface OptionSpec {
  /** Option names, kebab-case, without aliases or yargs' own (help, version). */
  names: Set<string>;
  boolean: Set<string>;
  number: Set<string>;
  array: Set<string>;
  choices: Map<string, readonly unknown[]>;
  aliases: Set<string>;
}

/** Options every command has, declared on the top level. */
export const GLOBAL_OPTIONS = ['help', 'version', 'debug', 'config'];

interface DeclaredOptions {
  key: Record<string, unknown>;
  boolean: string[];
  number: string[];
  array: string[];
  choices: Record<string, readonly unknown[]>;
  alias: Record<string, string[]>;
}

/** The options declared so far on a yargs instance (getOptions is public, but not in its types). */
export function declaredOptions(y: Argv<unknown>): DeclaredOptions {
  return (y as unknown as { getOptions(): DeclaredOptions }).getOptions();
}

export function specOf(y: Argv<unknown>): OptionSpec {
  const declared = declaredOptions(y);
  const aliases = new Set(Object.values(declared.alias ?? {}).flat());
  const names = new Set(
    Object.keys(declared.key).filter((name) => !GLOBAL_OPTIONS.includes(name) && !aliases.has(name) && name !== '$0'),
  );
  return {
    names,
    boolean: new Set(declared.boolean),
    number: new Set(declared.number),
    array: new Set(declared.array),
    choices: new Map(Object.entries(declared.choices ?? {})),
    aliases,
  };
}

interface CommandHandler {
  builder?: unknown;
}

/**
 * Every command's options, by command name. yargs builds a command's options only when that
 * command runs; here each builder is run once more on a scratch instance to learn them all.
 */
export function commandSpecs(cli: Argv<unknown>): Map<string, OptionSpec> {
  const internal = cli as unknown as {
    getInternalMethods(): { getCommandInstance(): { getCommandHandlers(): Record<string, CommandHandler> } };
  };
  const handlers = internal.getInternalMethods().getCommandInstance().getCommandHandlers();
  const specs = new Map<string, OptionSpec>();
  for (const [name, handler] of Object.entries(handlers)) {
    const scratch = yargs([]);
    const built = typeof handler.builder === 'function' ? (handler.builder(scratch) ?? scratch) : scratch;
    specs.set(name, specOf(built as Argv<unknown>));
  }
  return specs;
}
