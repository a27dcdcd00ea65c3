import type { XmlElement } from './xml.js';

// JSON names start lower-case, XML element names upper-case (§2 of the description): checked at
// every depth, so a nested `Address` in JSON or `line1` in XML is caught too. The walks keep the
// names above them on a trail and spell a path only for a name that breaks the rule: almost every
// name keeps it, and a path string per name was most of the walks' cost.

const LOWER_START = /^\p{Ll}/u;
const UPPER_START = /^\p{Lu}/u;

/** ASCII letters are answered without the Unicode regex; anything else asks it. */
function startsLowerCase(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first >= 0x61 && first <= 0x7a) return true;
  return first >= 0x80 && LOWER_START.test(name);
}

function startsUpperCase(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first >= 0x41 && first <= 0x5a) return true;
  return first >= 0x80 && UPPER_START.test(name);
}

const pathOf = (trail: string[]) => `/${trail.join('/')}`;

export function jsonNamesNotLowerCase(value: unknown, found: string[] = [], trail: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      trail.push(String(index));
      jsonNamesNotLowerCase(value[index], found, trail);
      trail.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      trail.push(key);
      if (!startsLowerCase(key)) found.push(pathOf(trail));
      jsonNamesNotLowerCase((value as Record<string, unknown>)[key], found, trail);
      trail.pop();
    }
  }
  return found;
}

export function xmlNamesNotPascalCase(element: XmlElement, found: string[] = [], trail: string[] = []): string[] {
  trail.push(element.local);
  if (!startsUpperCase(element.local)) found.push(pathOf(trail));
  for (const child of element.children) xmlNamesNotPascalCase(child, found, trail);
  trail.pop();
  return found;
}
