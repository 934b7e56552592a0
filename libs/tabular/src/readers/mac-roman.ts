import iconv from 'iconv-lite';

/**
 * Whether a legacy text sample is Mac Roman ("macintosh": the classic Mac OS, and Excel for Mac's "Macintosh
 * Comma Separated" export), told from the letters inside its words. chardet has no Mac Roman, so such a file was
 * read as windows-1252 ("Müller" read "MŸller", "Köln" "Kšln") or windows-1250, or refused when it had a letter
 * windows-1252 leaves undefined (Å, è, ç, ê are 81, 8F, 8D, 90 in Mac Roman).
 *
 * Mac Roman writes most accented lowercase letters at 80-9F, where windows-1252 has signs, a few undefined bytes and
 * capitals (Š Ž Œ Ÿ); windows-1252 writes them at E0-FF, where Mac Roman has signs and capitals. So a byte past ASCII
 * after a lowercase ASCII letter and before another or the word's end ("M?ller", "citt?") is voted for the code page
 * that reads it as a lowercase letter, when only one of the two does. windows-1252's quotes (91-94) are left out: its
 * apostrophe inside a word ("don’t") is í in Mac Roman. Mac Roman wins only when its votes are at least MAC_VOTES and
 * outnumber windows-1252's by MAC_MARGIN to one: text in windows-1252 almost never gives Mac Roman a vote (its letters
 * are lowercase there and signs or capitals in Mac Roman), and the sample is otherwise left to chardet as before.
 */
export function isMacRoman(sample: Buffer): boolean {
  let mac = 0;
  let windows = 0;
  for (let i = 1; i < sample.length - 1; i++) {
    const byte = sample[i];
    if (byte < 0x80 || (byte >= 0x91 && byte <= 0x94) || !isAsciiLower(sample[i - 1])) continue;
    const next = sample[i + 1];
    if (!isAsciiLower(next) && (next >= 0x80 || isAsciiLetter(next))) continue;
    const inMac = MAC_LOWER[byte - 0x80];
    const inWindows = WINDOWS_LOWER[byte - 0x80];
    if (inMac && !inWindows) mac++;
    else if (inWindows && !inMac) windows++;
  }
  return mac >= MAC_VOTES && mac >= MAC_MARGIN * windows;
}

/** Votes Mac Roman needs at least, and how many times windows-1252's. */
const MAC_VOTES = 2;
const MAC_MARGIN = 4;

const isAsciiLower = (byte: number): boolean => byte >= 0x61 && byte <= 0x7a;
const isAsciiLetter = (byte: number): boolean => isAsciiLower(byte | 0x20);

/** Whether each byte 80-FF reads as a lowercase letter in `codePage`. */
function lowercaseLetters(codePage: string): boolean[] {
  const bytes = Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i));
  return [...iconv.decode(bytes, codePage)].map((c) => /\p{Ll}/u.test(c));
}

const MAC_LOWER = lowercaseLetters('macintosh');
const WINDOWS_LOWER = lowercaseLetters('windows-1252');
