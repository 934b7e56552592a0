import chardet from 'chardet';
import iconv from 'iconv-lite';

/**
 * The code pages of scripts other than Latin that chardet names, as the service reads them (its
 * ISO names for Cyrillic and Arabic read as their Windows supersets, as text-decoding.ts does).
 */
const OTHER_SCRIPTS: Record<string, string> = {
  'windows-1251': 'windows-1251',
  'iso-8859-5': 'windows-1251',
  'koi8-r': 'koi8-r',
  'windows-1256': 'windows-1256',
  'iso-8859-6': 'windows-1256',
  'iso-8859-7': 'iso-8859-7',
  'iso-8859-8': 'iso-8859-8',
  'iso-8859-8-i': 'iso-8859-8',
};

/** A word this long or longer whose every letter is past ASCII is no word of a Latin script. */
const WORD_OF_ANOTHER_SCRIPT = 3;

const isAsciiLetter = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

/**
 * The words of `sample` that have a byte past ASCII, sorted: those written in bytes past ASCII
 * alone (`other`, three bytes or more), and those that mix them with ASCII letters (`latin`). A
 * word is a run of ASCII letters and bytes past ASCII.
 */
function wordsPastAscii(sample: Buffer): { other: Buffer[]; latin: number } {
  const other: Buffer[] = [];
  let latin = 0;
  let start = -1;
  let ascii = 0;
  for (let i = 0; i <= sample.length; i++) {
    const byte = i < sample.length ? sample[i] : 0x20;
    const letter = isAsciiLetter(byte);
    if (letter || byte >= 0x80) {
      if (start < 0) start = i;
      if (letter) ascii++;
      continue;
    }
    if (start >= 0) {
      const length = i - start;
      if (ascii === 0 && length >= WORD_OF_ANOTHER_SCRIPT) other.push(sample.subarray(start, i));
      else if (ascii > 0 && ascii < length) latin++;
    }
    start = -1;
    ascii = 0;
  }
  return { other, latin };
}

/**
 * Greek: chardet names ISO-8859-7, which windows-1253 reads alike but for its capitals with an accent
 * (Ά is A2 in windows-1253, B6 in ISO-8859-7; A2 is a quotation mark in ISO-8859-7, B6 a pilcrow in
 * windows-1253). Such a byte right before a letter tells which one the file was saved in; without one,
 * windows-1253, the commoner, where it reads every byte (it leaves AA, D2 and FF undefined).
 */
export function greekCodePage(sample: Buffer, readable: (codePage: string) => boolean): 'windows-1253' | 'iso-8859-7' {
  let windows = 0;
  let iso = 0;
  for (let i = 0; i + 1 < sample.length; i++) {
    if (sample[i + 1] < 0xc1) continue;
    if (sample[i] === 0xa2) windows++;
    else if (sample[i] === 0xb6) iso++;
  }
  return iso > windows || !readable('windows-1253') ? 'iso-8859-7' : 'windows-1253';
}

/** How many of `words` read as letters alone in `codePage` (not "———" or "•••", which also make words past ASCII). */
const wordsOfLetters = (words: Buffer[], codePage: string): number =>
  words.filter((word) => /^\p{L}+$/u.test(iconv.decode(word, codePage))).length;

/**
 * Whether the words read as Russian in ibm866 (DOS), which chardet does not know: every one of them
 * Cyrillic letters there, with some bytes in 80-AF, where no other code page here keeps letters of a
 * script (Hebrew ones, E0-FA in windows-1255, read as Cyrillic letters in ibm866 too).
 */
const dosCyrillic = (words: Buffer[]): boolean =>
  words.some((word) => word.some((byte) => byte <= 0xaf)) &&
  words.every((word) => /^\p{Script=Cyrillic}+$/u.test(iconv.decode(word, 'ibm866')));

/**
 * The code page of a sample whose words past ASCII are words of another script (Cyrillic, Greek,
 * Arabic, Hebrew), or null. A mostly-English list with a few Russian or Arabic names was read as
 * windows-1252 ("Èâàí Ïåòðîâ"): chardet scores the whole sample, and its English outweighs a few
 * names. But Latin text puts its letters past ASCII among ASCII ones (café, Łódź), while those
 * scripts write whole words in them; where such words, read as letters, outnumber the Latin ones
 * twice, chardet is asked about those words alone, and its best code page of another script is
 * taken (or ibm866, which it does not know, when their bytes are its Cyrillic letters). `readable`
 * says whether the whole sample is read by a code page without a byte it leaves undefined.
 */
export function wordsOfAnotherScript(sample: Buffer, readable: (codePage: string) => boolean): string | null {
  const { other, latin } = wordsPastAscii(sample);
  const enough = (words: number) => words >= 2 && words > 2 * latin;
  if (!enough(other.length)) return null;
  const words = Buffer.concat(other.flatMap((word) => [word, Buffer.from(' ')]));
  for (const candidate of chardet.analyse(words)) {
    const codePage = OTHER_SCRIPTS[candidate.name.toLowerCase()];
    if (!codePage || candidate.confidence <= 0) continue;
    const chosen = codePage === 'iso-8859-7' ? greekCodePage(sample, readable) : codePage;
    if (enough(wordsOfLetters(other, chosen)) && readable(chosen)) return chosen;
  }
  return dosCyrillic(other) ? 'ibm866' : null;
}
