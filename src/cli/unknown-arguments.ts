import { nearestName } from './did-you-mean.js';
import { GLOBAL_OPTIONS, type OptionSpec } from './option-specs.js';

// yargs refuses what it does not know with "Unknown arguments: onyl, skp" (and lists a long
// option twice, as --report-dirr and as reportDirr). This says which were options and which
// words, and what was probably meant.

const UNKNOWN = /^Unknown arguments?: (.+)$/;
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function given(name: string, args: readonly string[]): 'long' | 'short' | 'word' {
  const long = (arg: string) => arg === `--${name}` || arg.startsWith(`--${name}=`) || arg === `--no-${name}`;
  if (args.some(long)) return 'long';
  if (args.some((arg) => /^-[^-]/.test(arg) && arg.slice(1).includes(name))) return 'short';
  return 'word';
}

/** yargs' complaint about unknown arguments retold, or undefined for any other complaint. */
export function unknownArguments(
  message: string,
  args: readonly string[],
  specs: Map<string, OptionSpec>,
): string | undefined {
  const listed = UNKNOWN.exec(message)?.[1]?.split(', ');
  if (!listed) return undefined;
  const names = listed.filter((name) => kebab(name) === name || !listed.includes(kebab(name)));
  const command = specs.has(args[0] ?? '') ? (args[0] as string) : 'run';
  const options = [...(specs.get(command)?.names ?? []), ...GLOBAL_OPTIONS];
  // A negative value ("--shard -1/2") reads as short options: say what was given, not "no option -1".
  const negative = args.findIndex(
    (arg, index) => /^-\d/.test(arg) && (args[index - 1] ?? '').startsWith('--') && names.some((n) => arg.includes(n)),
  );
  if (negative > 0) {
    const option = args[negative - 1] as string;
    return `${option} ${args[negative]} is not taken: a value that starts with "-" reads as an option, and ${option} takes no negative value`;
  }
  const parts = names.map((name) => {
    const how = given(name, args);
    if (how === 'word') {
      const meant = command === 'run' && name === args[0] ? nearestName(name, specs.keys()) : undefined;
      return meant ? `unknown command "${name}" (did you mean "${meant}"?)` : `unexpected argument "${name}"`;
    }
    const flag = `${how === 'long' ? '--' : '-'}${name}`;
    const meant = nearestName(name, options);
    return `${command} has no option ${flag}${meant ? ` (did you mean --${meant}?)` : ''}`;
  });
  return parts.join('; ');
}
