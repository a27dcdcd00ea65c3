import { UsageError } from '../findings/usage-error.js';
import { didYouMean } from './did-you-mean.js';
import type { OptionSpec } from './option-specs.js';

// A config file is refused, in one line naming the file and the key, when it holds a key no
// command knows or a value of the wrong type: a silently ignored "strict": "yes" or "reportDri"
// makes a run that looks configured and is not.

export interface ConfigEntry {
  /** The key as the file spells it (reportDir or report-dir). */
  key: string;
  /** The option it stands for (report-dir). */
  name: string;
  value: unknown;
}

export interface ConfigContents {
  path: string;
  top: ConfigEntry[];
  sections: Partial<Record<string, ConfigEntry[]>>;
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Known names in the spelling the file uses for this key: camelCase unless it wrote kebab-case. */
function spelt(key: string, names: Iterable<string>): string[] {
  return [...names].map((name) => (key.includes('-') ? name : camel(name)));
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Why a value does not fit the option, or undefined when it does. */
export function typeProblem(name: string, value: unknown, spec: OptionSpec): string | undefined {
  const choices = spec.choices.get(name);
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && !spec.array.has(name)) return `must be one value, not a list`;
  for (const item of items) {
    if (choices) {
      if (!choices.includes(item)) return `must be one of ${choices.map((c) => show(c)).join(', ')}, not ${show(item)}`;
    } else if (spec.boolean.has(name)) {
      if (typeof item !== 'boolean') return `must be true or false, not ${show(item)}`;
    } else if (spec.number.has(name)) {
      if (typeof item !== 'number' || !Number.isFinite(item)) return `must be a number, not ${show(item)}`;
    } else if (typeof item !== 'string' && typeof item !== 'number') {
      return `must be ${spec.array.has(name) ? 'a string or a list of strings' : 'a string'}, not ${show(item)}`;
    }
  }
  return undefined;
}

/**
 * Checks every key of the file against the commands' options: a section's keys against its
 * command, a top-level key against every command but serve (top-level options do not reach it).
 */
export function checkConfig(config: ConfigContents, specs: Map<string, OptionSpec>): void {
  const refuse = (what: string) => {
    throw new UsageError(`config file ${config.path}: ${what}`);
  };
  const commands = [...specs.keys()];
  for (const [command, entries] of Object.entries(config.sections)) {
    const spec = specs.get(command);
    if (!spec || !entries) continue;
    for (const { key, name, value } of entries) {
      if (!spec.names.has(name)) refuse(`${command} has no option "${key}"${didYouMean(key, spelt(key, spec.names))}`);
      const problem = typeProblem(name, value, spec);
      if (problem) refuse(`"${command}.${key}" ${problem}`);
    }
  }
  const clientCommands = [...specs].filter(([command]) => command !== 'serve');
  for (const { key, name, value } of config.top) {
    const takers = clientCommands.filter(([, spec]) => spec.names.has(name));
    if (takers.length === 0) {
      const known = new Set(clientCommands.flatMap(([, spec]) => [...spec.names]));
      const looksLikeSection = value !== null && typeof value === 'object' && !Array.isArray(value);
      const hint = looksLikeSection ? didYouMean(key, commands) : didYouMean(key, spelt(key, known));
      refuse(
        `no option "${key}"${hint || (looksLikeSection ? `; sections are named after commands: ${commands.join(', ')}` : '')}`,
      );
    }
    for (const [, spec] of takers) {
      const problem = typeProblem(name, value, spec);
      if (problem) refuse(`"${key}" ${problem}`);
    }
  }
}
