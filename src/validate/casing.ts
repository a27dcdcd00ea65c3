import type { XmlElement } from './xml.js';

// JSON names start lower-case, XML element names upper-case (§2 of the description): checked at
// every depth, so a nested `Address` in JSON or `line1` in XML is caught too.

const LOWER_START = /^\p{Ll}/u;
const UPPER_START = /^\p{Lu}/u;

export function jsonNamesNotLowerCase(value: unknown, path = '', found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1)
      jsonNamesNotLowerCase(value[index], `${path}/${index}`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      const here = `${path}/${key}`;
      if (!LOWER_START.test(key)) found.push(here);
      jsonNamesNotLowerCase((value as Record<string, unknown>)[key], here, found);
    }
  }
  return found;
}

export function xmlNamesNotPascalCase(element: XmlElement, path = '', found: string[] = []): string[] {
  const here = `${path}/${element.local}`;
  if (!UPPER_START.test(element.local)) found.push(here);
  for (const child of element.children) xmlNamesNotPascalCase(child, here, found);
  return found;
}
