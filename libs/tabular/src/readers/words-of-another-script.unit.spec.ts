import iconv from 'iconv-lite';
import { detectEncoding } from './text-decoding';
import { wordsOfAnotherScript } from './words-of-another-script';

/** Names and places of each script, and the code pages its files are saved in. */
const SCRIPTS: Record<string, { codePages: string[]; words: string[] }> = {
  Russian: {
    codePages: ['windows-1251', 'koi8-r', 'ibm866'],
    words: ['Иван', 'Петров', 'Ольга', 'Смирнова', 'Москва', 'Сергей', 'Кузнецов', 'Наталья', 'Новосибирск', 'Екатерина', 'Юрий', 'Щукин'],
  },
  Arabic: {
    codePages: ['windows-1256'],
    words: ['محمد', 'علي', 'أحمد', 'حسن', 'فاطمة', 'الزهراء', 'القاهرة', 'عمر', 'خالد', 'يوسف', 'مريم', 'دبي'],
  },
  Greek: {
    codePages: ['windows-1253'],
    words: ['Γιώργος', 'Παπαδόπουλος', 'Άννα', 'Ιωάννου', 'Αθήνα', 'Νίκος', 'Κωνσταντίνου', 'Ελένη', 'Θεσσαλονίκη', 'Μαρία'],
  },
};

/**
 * A seeded list of mostly English rows with `foreign` rows of the script's names first (a Park-Miller
 * generator: the same lists every run), as a customer's export of contacts holds them.
 */
function mostlyEnglish(words: string[], rows: number, foreign: number, seed: number): string {
  let state = seed;
  const next = () => words[(state = (state * 16807) % 2147483647) % words.length];
  let text = 'id,name,email,city\n';
  for (let i = 0; i < rows; i++)
    text += i < foreign ? `${i},${next()} ${next()},p${i}@example.com,${next()}\n` : `${i},John Smith,j${i}@example.com,London\n`;
  return text;
}

describe('detectEncoding of a mostly-English list with a few names in another script', () => {
  it.each(
    Object.entries(SCRIPTS).flatMap(([script, { codePages, words }]) => codePages.map((codePage) => [script, codePage, words] as const)),
  )(
    'reads two %s names among 20 English rows in %s, every letter kept (they were read as windows-1252 or windows-1250)',
    (_script, codePage, words) => {
      const text = mostlyEnglish(words, 20, 2, 3);
      const bytes = iconv.encode(text, codePage);
      const encoding = detectEncoding(bytes);
      expect(encoding).toBe(codePage);
      expect(iconv.decode(bytes, encoding)).toBe(text);
    },
  );

  it('gets at least 90% of 1,500 seeded lists of 3 to 42 rows with 1 to 5 such rows right (the code before: 1 of 1,500)', () => {
    let right = 0;
    let total = 0;
    for (const { codePages, words } of Object.values(SCRIPTS))
      for (const codePage of codePages)
        for (let seed = 1; seed <= 300; seed++) {
          const rows = 3 + (seed % 40);
          total++;
          if (detectEncoding(iconv.encode(mostlyEnglish(words, rows, 1 + (seed % Math.min(rows, 5)), seed * 7919), codePage)) === codePage)
            right++;
        }
    expect(total).toBe(1500);
    expect(right / total).toBeGreaterThanOrEqual(0.9);
  });

  it('reads Greek with an accented capital of ISO-8859-7 (Ά at B6) as ISO-8859-7, and of windows-1253 (A2) as windows-1253', () => {
    const text = 'id,name\n1,John Smith\n2,Άννα Ιωάννου\n3,Άρης Παππάς\n4,Mary Jones\n';
    for (const codePage of ['iso-8859-7', 'windows-1253']) {
      const bytes = iconv.encode(text, codePage);
      expect(detectEncoding(bytes)).toBe(codePage);
    }
  });
});

describe('wordsOfAnotherScript leaves Latin text alone', () => {
  const readable = (sample: Buffer) => (codePage: string) => !iconv.decode(sample, codePage).includes('\uFFFD');
  it.each([
    ['windows-1252', 'name,city\nJérôme Dupré,Orléans\nÞórður Þú,Reykjavík\nÉTÉ,ÀÉÈ\nÆØÅ,Ærø\nSøren,Århus\n'],
    ['windows-1250', 'name,city\nŁukasz Wójcik,Łódź\nŁÓŻ,ŚĆŹ\nJiří Dvořák,Brno\n'],
    // Lines of signs make words past ASCII too, read as letters in no code page.
    ['windows-1252', 'item,note\n———,•••\n€€€,±°½\n———,•••\nSmith,London\n'],
  ])('%s: %j', (codePage, text) => {
    const sample = iconv.encode(text, codePage);
    expect(wordsOfAnotherScript(sample, readable(sample))).toBeNull();
    expect(detectEncoding(sample)).toBe(codePage);
  });

  it('needs two words of another script: one name alone among English rows tells too little', () => {
    const sample = iconv.encode('id,name\n1,John Smith\n2,Иван\n3,Mary Jones\n', 'windows-1251');
    expect(wordsOfAnotherScript(sample, readable(sample))).toBeNull();
  });

  it('does not read as DOS Cyrillic bytes that are no letters there (B0 draws a box in ibm866)', () => {
    const sample = Buffer.from('a,b,\x81\x8d\x8f\xb0\n'.repeat(50), 'latin1');
    expect(wordsOfAnotherScript(sample, () => true)).toBeNull();
    expect(wordsOfAnotherScript(Buffer.from('a,b,\x81\x8d\x8f\xaf\n'.repeat(50), 'latin1'), () => true)).toBe('ibm866');
  });
});
