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

/** Bytes where windows-1253 and ISO-8859-7 keep Greek letters alike: C1-FE (Α-ω), DC-FE the small ones. */
const isGreekLetter = (byte: number | undefined) => byte !== undefined && byte >= 0xc1 && byte <= 0xfe;
const isSmallGreekLetter = (byte: number | undefined) => byte !== undefined && byte >= 0xdc && byte <= 0xfe;

/**
 * Greek: chardet names ISO-8859-7, which windows-1253 reads alike but for a few bytes. What tells them
 * apart: A2 is Ά in windows-1253 (before a small letter, at a word's start: Άννα) and ’ in ISO-8859-7
 * (after a letter, σ’αγαπώ, or before a sign, ‘Αθήνα’); B6 is Ά in ISO-8859-7 and ¶ in windows-1253;
 * A1 ‘ and A4 € are ISO-8859-7's (΅ and ¤ in windows-1253); 80-9F are windows-1253's signs (€ ‘ ’ “ ” …),
 * control characters in ISO-8859-7. Without evidence either way, chardet's ISO-8859-7 stands.
 */
export function greekCodePage(sample: Buffer, readable: (codePage: string) => boolean): 'windows-1253' | 'iso-8859-7' {
  let windows = 0;
  let iso = 0;
  for (let i = 0; i < sample.length; i++) {
    const byte = sample[i];
    if (byte >= 0x80 && byte <= 0x9f) windows++;
    else if (byte === 0xa1 || byte === 0xa4) iso++;
    else if (byte === 0xb6 && isGreekLetter(sample[i + 1])) iso++;
    else if (byte === 0xa2) {
      if (!isGreekLetter(sample[i - 1]) && isSmallGreekLetter(sample[i + 1])) windows++;
      else iso++;
    }
  }
  return windows > iso && readable('windows-1253') ? 'windows-1253' : 'iso-8859-7';
}

/**
 * Russian in windows-1251 read as Greek: chardet sometimes scores a few Russian words as ISO-8859-7, whose
 * letters sit at the same bytes. E0 and C0 are а and А, among Russian's commonest letters, and ΰ and ΐ
 * in Greek, which hardly any word has: two of them and the words are not Greek.
 */
const notGreek = (words: Buffer[]): boolean => {
  let rare = 0;
  for (const word of words) for (const byte of word) if (byte === 0xe0 || byte === 0xc0) rare++;
  return rare >= 2;
};

/**
 * Hebrew: its letters are E0-FA in windows-1255 and ISO-8859-8, where ISO-8859-7 keeps small Greek
 * letters, and chardet scores a few Hebrew words as Greek as often as Hebrew. Greek words have capitals
 * (C1-D9) or accented letters (DC-DF, FC-FE) in all but a few short words; words without any are Hebrew
 * (a geresh or gershayim after a letter allowed).
 * windows-1255 (with ₪ and the vowel points) where it reads every byte, else ISO-8859-8.
 */
function hebrewCodePage(words: Buffer[], readable: (codePage: string) => boolean): 'windows-1255' | 'iso-8859-8' | null {
  const isLetter = (byte: number | undefined) => byte !== undefined && byte >= 0xe0 && byte <= 0xfa;
  // Geresh and gershayim (D7 D8 in windows-1255) stand after letters: ש״ח, צ׳.
  const hebrew = words.every((word) =>
    word.every((byte, i) => isLetter(byte) || ((byte === 0xd7 || byte === 0xd8) && isLetter(word[i - 1]))),
  );
  if (!hebrew) return null;
  return readable('windows-1255') ? 'windows-1255' : 'iso-8859-8';
}

/**
 * The code page of a sample chardet named ISO-8859-7: Hebrew when its words past ASCII are Hebrew
 * letters, else Greek in whichever of its two code pages the bytes tell (greekCodePage).
 */
export function greekOrHebrew(sample: Buffer, readable: (codePage: string) => boolean): string {
  const lettered = wordsPastAscii(sample).other.filter(inLetterBytes);
  return (lettered.length > 0 && hebrewCodePage(lettered, readable)) || greekCodePage(sample, readable);
}

/**
 * Whether words are written where the code pages chardet knows keep letters: two thirds of their bytes at
 * C0-FF. Bytes 80-BF are signs in Western text (€ … • – — ™ « ½ £, the no-break space), and runs of them
 * (masked card numbers "•••• 4242", price levels "€€€", rules "———") make words past ASCII too.
 */
const inLetterBytes = (word: Buffer): boolean => {
  let letters = 0;
  for (const byte of word) if (byte >= 0xc0) letters++;
  return letters * 3 >= word.length * 2;
};

/** How many of `words` read as letters alone in `codePage`. */
const wordsOfLetters = (words: Buffer[], codePage: string): number =>
  words.filter((word) => /^\p{L}+$/u.test(iconv.decode(word, codePage))).length;

/**
 * Whether the words read as Russian in ibm866 (DOS), which chardet does not know: every one of them
 * Cyrillic letters there (80-AF, E0-F1); among them some of А-п (80-AF), where the other code pages
 * keep no letters, and some of р-я (E0-EF), which no run of Western signs holds ("••••", "€€€ ———");
 * and at least five different bytes.
 */
function dosCyrillic(words: Buffer[]): boolean {
  const bytes = new Set<number>();
  for (const word of words) for (const byte of word) bytes.add(byte);
  const some = (from: number, to: number) => [...bytes].some((byte) => byte >= from && byte <= to);
  return (
    bytes.size >= 5 &&
    some(0x80, 0xaf) &&
    some(0xe0, 0xef) &&
    words.every((word) => /^\p{Script=Cyrillic}+$/u.test(iconv.decode(word, 'ibm866')))
  );
}

/**
 * The code page of a sample whose words past ASCII are words of another script (Cyrillic, Greek,
 * Arabic, Hebrew), or null. A mostly-English list with a few Russian or Arabic names was read as
 * windows-1252 ("Èâàí Ïåòðîâ"): chardet scores the whole sample, and its English outweighs a few
 * names. But Latin text puts its letters past ASCII among ASCII ones (café, Łódź), while those
 * scripts write whole words in them; where such words, read as letters, are at least two and outnumber
 * the Latin ones twice, chardet is asked about those words alone, and its best code page of another
 * script is taken (Hebrew told from Greek by the bytes, Greek's two code pages by greekCodePage), or
 * ibm866, which it does not know, when their bytes are its Cyrillic letters. `readable` says whether
 * the whole sample is read by a code page without a byte it leaves undefined.
 */
export function wordsOfAnotherScript(sample: Buffer, readable: (codePage: string) => boolean): string | null {
  const { other, latin } = wordsPastAscii(sample);
  const enough = (words: number) => words >= 2 && words > 2 * latin;
  if (!enough(other.length)) return null;
  const lettered = other.filter(inLetterBytes);
  if (enough(lettered.length)) {
    const words = Buffer.concat(lettered.flatMap((word) => [word, Buffer.from(' ')]));
    for (const candidate of chardet.analyse(words)) {
      const codePage = OTHER_SCRIPTS[candidate.name.toLowerCase()];
      if (!codePage || candidate.confidence <= 0) continue;
      const hebrew = (codePage === 'iso-8859-7' || codePage === 'iso-8859-8') && hebrewCodePage(lettered, readable);
      if (!hebrew && codePage === 'iso-8859-7' && notGreek(lettered)) continue;
      const chosen = hebrew || (codePage === 'iso-8859-7' ? greekCodePage(sample, readable) : codePage);
      if (enough(wordsOfLetters(lettered, chosen)) && readable(chosen)) return chosen;
    }
    // A few Hebrew words chardet makes nothing of.
    const hebrew = hebrewCodePage(lettered, readable);
    if (hebrew && enough(wordsOfLetters(lettered, hebrew))) return hebrew;
  }
  return dosCyrillic(other) ? 'ibm866' : null;
}
