import type { XmlElement } from './xml.js';

// JSON names start lower-case, XML element names upper-case (§2 of the description): checked at
// every depth, so a nested `Address` in JSON or `line1` in XML is caught too.

const LOWER_START = /^\p{Ll}/u;
const UPPER_START = /^\p{Lu}/u;

export function jsonNamesNotLowerCase(value: unknown, path = ''): string[] {
  const found: string[] = [];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) found.push(...jsonNamesNotLowerCase(item, `${path}/${index}`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const here = `${path}/${key}`;
      if (!LOWER_START.test(key)) found.push(here);
      found.push(...jsonNamesNotLowerCase(child, here));
    }
  }
  return found;
}

export function xmlNamesNotPascalCase(element: XmlElement, path = ''): string[] {
  const here = `${path}/${element.local}`;
  const found = UPPER_START.test(element.local) ? [] : [here];
  for (const child of element.children) found.push(...xmlNamesNotPascalCase(child, here));
  return found;
}
