import { nearestName } from './did-you-mean.js';

// yargs refuses a value outside an option's choices as 'Invalid values: Argument: format, Given:
// "jsno", Choices: "json", "xml", "both"'. This says it as every other refusal of the tool does.

const INVALID = /^Invalid values?:\s*Argument: ([^,]+), Given: (.+?), Choices: (.+)$/s;

/** yargs' complaint about a value outside the choices retold, or undefined for any other complaint. */
export function invalidChoice(message: string): string | undefined {
  const match = INVALID.exec(message.trim());
  if (!match) return undefined;
  const [, name = '', given = '', listed = ''] = match;
  const choices = [...listed.matchAll(/"([^"]*)"/g)].map((choice) => choice[1] as string);
  const value = given.replace(/^"(.*)"$/s, '$1');
  const meant = nearestName(value, choices);
  return `--${name} ${value} is not one of ${choices.join(', ')}${meant ? ` (did you mean ${meant}?)` : ''}`;
}
