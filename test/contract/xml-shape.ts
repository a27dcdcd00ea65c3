import { SaxesParser } from 'saxes';

/**
 * The names an XML text uses, as paths: `Checkout/Billing/Address/Name` for elements and
 * `Checkout/Tax@xsi:nil` for attributes, namespace declarations left out. Read without resolving
 * prefixes, so that a text whose prefix is declared elsewhere can be compared name by name; what
 * the parser finds wrong on the way is returned, not thrown.
 */
export function xmlShape(text: string): { paths: string[]; errors: string[] } {
  const parser = new SaxesParser({ xmlns: false });
  const paths = new Set<string>();
  const errors: string[] = [];
  const stack: string[] = [];
  parser.on('error', (error) => errors.push(error.message.replace(/^\d+:\d+: /, '')));
  parser.on('opentag', (tag) => {
    stack.push(tag.name);
    const path = stack.join('/');
    paths.add(path);
    for (const name of Object.keys(tag.attributes)) {
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) paths.add(`${path}@${name}`);
    }
  });
  parser.on('closetag', () => stack.pop());
  parser.write(text).close();
  return { paths: [...paths].sort(), errors };
}
