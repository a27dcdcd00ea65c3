// Texts seen again are masked once. The proxy masks every text of every exchange it records, and
// most of them it has masked before: the same header values, the URL a client polls, the answer it
// polls for, the same finding. What is remembered is bounded (texts up to 8 KiB, 1 Mi characters
// in all, forgotten together when full), so a stream of ever new texts costs one lookup each.

const LONGEST_REMEMBERED = 8 * 1024;
const CHARACTERS_KEPT = 1024 * 1024;

/** `mask` with its answers for short texts remembered. */
export function rememberedMask(mask: (text: string) => string): (text: string) => string {
  const known = new Map<string, string>();
  let characters = 0;
  return (text) => {
    if (text.length > LONGEST_REMEMBERED) return mask(text);
    let masked = known.get(text);
    if (masked === undefined) {
      masked = mask(text);
      // A masked text is never longer than twice its text: both are counted.
      characters += text.length + (masked === text ? 0 : masked.length);
      if (characters > CHARACTERS_KEPT) {
        known.clear();
        characters = text.length + (masked === text ? 0 : masked.length);
      }
      known.set(text, masked);
    }
    return masked;
  };
}
