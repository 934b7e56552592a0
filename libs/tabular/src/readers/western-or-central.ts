import iconv from 'iconv-lite';

export type WesternOrCentral = 'windows-1252' | 'windows-1250';

/**
 * The letters past ASCII that the languages written in each code page use. windows-1252 (Western) and
 * windows-1250 (Central European) read about half of the bytes past ASCII alike (á é í ó ú ä ö ü ç ß…);
 * the rest are letters in both (à è ì ò ù å ø æ ñ in one, ŕ č ě ň ů ĺ ř ć ń in the other) or a letter in
 * one and a sign in the other (ł ą ż ş ľ against ³ ¹ ¿ º ¾). On a short sample chardet's scores for the
 * two are close and often wrong: Italian came out as windows-1250 ("città" read "cittŕ") and Czech or
 * Hungarian as windows-1252 ("Dvořák" read "Dvoøák"), whatever the file's length.
 */
const LANGUAGE_LETTERS: Record<WesternOrCentral, readonly string[]> = {
  'windows-1252': [
    'àâçéèêëîïôœùûüÿ', // French
    'äöüß', // German
    'áéíñóúü', // Spanish
    'áàâãçéêíóôõú', // Portuguese
    'àèéìíòóùú', // Italian
    'áéèëïóöü', // Dutch
    'æøåé', // Danish, Norwegian
    'åäöéšž', // Swedish, Finnish
    'áðéíóúýþæö', // Icelandic
    'àçèéíïòóúü', // Catalan
  ],
  'windows-1250': [
    'áčďéěíňóřšťúůýž', // Czech
    'áäčďéíĺľňóôŕšťúýž', // Slovak
    'ąćęłńóśźż', // Polish
    'áéíóöőúüű', // Hungarian
    'čćđšž', // Croatian, Bosnian, Slovene
    'ăâîşţ', // Romanian
    'äöüß', // German
    'çë', // Albanian
  ],
};

/** How one code page reads each byte: whether it is a letter, and which languages write it (a bit per language). */
interface Reading {
  letter: Uint8Array;
  languages: Uint32Array;
  /** Every language's bit. */
  all: number;
  /** Bytes both code pages read as the same character (á é ü ß…): they say nothing between the two. */
  readAlike: Uint8Array;
}

function readingOf(codePage: WesternOrCentral): Reading {
  const letter = new Uint8Array(256);
  const languages = new Uint32Array(256);
  const readAlike = new Uint8Array(256);
  const sets = LANGUAGE_LETTERS[codePage];
  const other: WesternOrCentral = codePage === 'windows-1252' ? 'windows-1250' : 'windows-1252';
  for (let byte = 0; byte < 256; byte++) {
    const char = iconv.decode(Buffer.from([byte]), codePage);
    readAlike[byte] = char === iconv.decode(Buffer.from([byte]), other) ? 1 : 0;
    // ª and º are letters to Unicode but signs to a reader ("nº 5", "1ª"); an undefined byte decodes to U+FFFD.
    letter[byte] = /\p{L}/u.test(char) && char !== 'ª' && char !== 'º' ? 1 : 0;
    if (byte < 0x80 || !letter[byte]) continue;
    const lower = char.toLowerCase();
    sets.forEach((set, i) => {
      if (set.includes(lower)) languages[byte] |= 1 << i;
    });
  }
  return { letter, languages, all: 2 ** sets.length - 1, readAlike };
}

let readings: Record<WesternOrCentral, Reading> | null = null;

/**
 * What tells against reading a sample in a code page, the strongest first: a sign between two letters
 * ("Wroc³aw", "Iaºi": a letter in the other code page); words whose letters past ASCII no one language
 * writes together ("Kjćr" is, "Jiøí" is not); letters past ASCII outside the one language that has most of them;
 * letters one language alone writes. With the letters past ASCII the reading makes, to weigh the first by.
 */
function evidenceAgainst(
  sample: Buffer,
  { letter, languages, all, readAlike }: Reading,
): { against: [number, number, number, number]; letters: number } {
  let signsInWords = 0;
  let letters = 0;
  let loneLetters = 0; // letters past ASCII the two read otherwise that one language alone writes
  let mixedWords = 0;
  const outside = new Uint32Array(32);
  let word = all; // the languages that write every letter of the word so far
  let wordHasOwnLetters = false;
  for (let i = 0; i <= sample.length; i++) {
    const byte = i < sample.length ? sample[i] : 0x20;
    if (letter[byte]) {
      if (byte >= 0x80) {
        letters++;
        if (!readAlike[byte] && bitCount(languages[byte]) === 1) loneLetters++;
        word &= languages[byte];
        wordHasOwnLetters = true;
        for (let l = 0; all >> l; l++) if (!(languages[byte] & (1 << l))) outside[l]++;
      }
      continue;
    }
    if (wordHasOwnLetters && word === 0) mixedWords++;
    word = all;
    wordHasOwnLetters = false;
    if (byte >= 0x80 && i > 0 && letter[sample[i - 1]] && i + 1 < sample.length && letter[sample[i + 1]]) signsInWords++;
  }
  let fewestOutside = Infinity;
  for (let l = 0; all >> l; l++) fewestOutside = Math.min(fewestOutside, outside[l]);
  // Last, and only when all else is even: letters one language alone writes, of those the two read otherwise ("città"
  // is Italian, French, Portuguese, Catalan in windows-1252; read "cittŕ", Slovak alone). Not how many languages
  // write them: the lists group languages as they please (è of four against č of three read Croatian "Kovač" Western).
  return { against: [signsInWords, mixedWords, fewestOutside, loneLetters], letters };
}

function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest; rest &= rest - 1) count++;
  return count;
}

/** A sign between letters decides alone when it is not a stray one ("nºs" in a Portuguese file of hundreds of accents). */
const SIGNS_SHARE = 20;

const definedIn = (sample: Buffer, codePage: WesternOrCentral): boolean => !iconv.decode(sample, codePage).includes('\uFFFD');

/**
 * windows-1252 or windows-1250 for a sample chardet read as one of them: the one whose reading the text's
 * letters tell less against (evidenceAgainst, compared strongest first), or null when they tell nothing
 * either way (the caller keeps chardet's choice). A code page under which a byte is undefined is not the file's.
 */
export function westernOrCentral(sample: Buffer): WesternOrCentral | null {
  const western = definedIn(sample, 'windows-1252');
  const central = definedIn(sample, 'windows-1250');
  if (western !== central) return western ? 'windows-1252' : 'windows-1250';
  if (!western) return null;
  readings ??= { 'windows-1252': readingOf('windows-1252'), 'windows-1250': readingOf('windows-1250') };
  const western1252 = evidenceAgainst(sample, readings['windows-1252']);
  const central1250 = evidenceAgainst(sample, readings['windows-1250']);
  const [a, b] = [western1252.against, central1250.against];
  const letters = Math.max(western1252.letters, central1250.letters);
  for (let k = 0; k < a.length; k++) {
    if (k === 0 && Math.abs(a[0] - b[0]) * SIGNS_SHARE < letters) continue;
    if (a[k] < b[k]) return 'windows-1252';
    if (b[k] < a[k]) return 'windows-1250';
  }
  return null;
}
