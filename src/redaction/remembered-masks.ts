import { RecentTexts } from '../validate/recent-texts.js';

// Texts seen again are masked once: the same header values, the URL a client polls, the answer it
// polls for, the same finding (see recent-texts.ts).

const LONGEST_REMEMBERED = 8 * 1024;

/** `mask` with its answers kept for texts that come again. */
export function rememberedMask(mask: (text: string) => string): (text: string) => string {
  const recent = new RecentTexts<string>(LONGEST_REMEMBERED);
  return (text) => recent.get(text, mask);
}
