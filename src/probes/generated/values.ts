import fc from 'fast-check';
import { RETURN_URL_MAX, RETURN_URL_MIN } from '../../validate/checkout.js';
import { ADDRESS_FIELDS } from '../../validate/model.js';

// Values a real client sends, drawn from the one description: every address field the schema
// documents, and ReturnUrls inside and outside the lengths it allows (UTF-16 code units).

/** Characters from the places services get text wrong. */
const PIECES = [
  fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -.,/'),
    maxLength: 12,
  }),
  // Latin-1 and other scripts
  fc.constantFrom('Café', 'Müller', 'Ærøskøbing', 'Straße', 'Ελλάδα', 'Москва', '東京都', 'دبي', 'שלום'),
  // Outside the Basic Multilingual Plane: two UTF-16 units each
  fc.constantFrom('😀', '𝔘𝔫𝔦', '𠜎', '🇳🇱'),
  // Combining marks: "é" written as e + U+0301, which a normaliser rewrites
  fc.constantFrom('e\u0301', 'n\u0303a', 'A\u030A'),
  // Markup characters an XML writer must escape, and quotes a JSON writer must
  fc.constantFrom('&', 'R&D <b>', '<', '>', '"', "'", 'Q&A', 'a]]>b'),
  // White space a trimming layer eats
  fc.constantFrom(' ', '  ', '\t'),
];

/** Plain text is what services get right: the other pieces come three times as often. */
const piece = fc.oneof(
  { weight: 1, arbitrary: PIECES[0] as fc.Arbitrary<string> },
  ...PIECES.slice(1).map((arbitrary) => ({ weight: 3, arbitrary })),
);

/** A text of the pieces above: empty, short, or long (a column may cut it). */
export const fieldText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.integer({ min: 60, max: 400 }).map((n) => 'Lange Straße '.repeat(n).slice(0, n)) },
);

/** Every documented address field, each with a generated value or left out. */
export const address = fc.record(
  Object.fromEntries(
    ADDRESS_FIELDS.map((field) => [field, field === 'country' ? fc.constantFrom('NL', 'DE', 'BE', 'FR') : fieldText]),
  ),
  { requiredKeys: ['name', 'city', 'country'].filter((field) => ADDRESS_FIELDS.includes(field)) },
) as fc.Arbitrary<Record<string, string>>;

/**
 * How a ReturnUrl starts: a plain query, and the shapes shops give theirs that a URL parser
 * rewrites when a service stores what it parsed rather than what was sent: a fragment, a query
 * of several parameters with percent-escapes, hosts outside ASCII (IDN, punycoded by such a parser).
 */
const URL_STARTS = [
  'https://shop.example.test/r?x=',
  'https://shop.example.test/r?order=1#',
  'https://shop.example.test/return?a=%C3%A9&b=%20&c=',
  'https://bücher.example.test/r?x=',
  'https://例え.テスト/r?x=',
];

/** A ReturnUrl of exactly `units` UTF-16 units from generated text (a non-BMP pair is never split). */
function returnUrlOf(units: number, filler: string, start = URL_STARTS[0] as string): string {
  let url = start.slice(0, units);
  const pieces = [...(filler || 'x')];
  let index = 0;
  while (url.length < units) {
    const piece = pieces[index % pieces.length] as string;
    index += 1;
    url += url.length + piece.length <= units ? piece : 'x';
  }
  return url;
}

const filler = fc.array(fc.oneof(...PIECES.slice(0, 5)), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));

/** A ReturnUrl the service must take: 5 to 512 units. */
export const validReturnUrl = fc
  .tuple(
    fc.oneof(fc.integer({ min: RETURN_URL_MIN, max: RETURN_URL_MAX }), fc.constantFrom(RETURN_URL_MIN, RETURN_URL_MAX)),
    filler,
    fc.constantFrom(...URL_STARTS),
  )
  .map(([units, text, start]) => returnUrlOf(units, text, start));

/** A ReturnUrl the service must refuse: shorter than 5 units or longer than 512. */
export const invalidReturnUrl = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 0, max: RETURN_URL_MIN - 1 }),
      fc.integer({ min: RETURN_URL_MAX + 1, max: RETURN_URL_MAX + 200 }),
    ),
    filler,
    fc.constantFrom(...URL_STARTS),
  )
  .map(([units, text, start]) => returnUrlOf(units, text, start));
