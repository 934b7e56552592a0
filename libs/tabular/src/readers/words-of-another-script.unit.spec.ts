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
    codePages: ['windows-1253', 'iso-8859-7'],
    words: ['Γιώργος', 'Παπαδόπουλος', 'Άννα', 'Ιωάννου', 'Αθήνα', 'Νίκος', 'Κωνσταντίνου', 'Ελένη', 'Θεσσαλονίκη', 'Μαρία'],
  },
  Hebrew: {
    codePages: ['windows-1255'],
    words: ['משה', 'כהן', 'דוד', 'לוי', 'שרה', 'מזרחי', 'ירושלים', 'אברהם', 'רחל', 'חיפה', 'יוסף', 'פרץ'],
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
  /** Whether the bytes, read in the encoding detected, are the text again (Greek reads alike in its two code pages but for a few bytes). */
  const readsRight = (text: string, codePage: string): boolean => {
    const bytes = iconv.encode(text, codePage);
    return iconv.decode(bytes, detectEncoding(bytes)) === text;
  };

  it.each(
    Object.entries(SCRIPTS).flatMap(([script, { codePages, words }]) => codePages.map((codePage) => [script, codePage, words] as const)),
  )(
    'reads two %s names among 20 English rows in %s, every letter kept (they were read as windows-1252 or windows-1250)',
    (_script, codePage, words) => {
      expect(readsRight(mostlyEnglish(words, 20, 2, 3), codePage)).toBe(true);
    },
  );

  it('reads at least 90% of 2,100 seeded lists of 3 to 42 rows with 1 to 5 such rows right (the code before: 4 of the 1,500 in five of these code pages)', () => {
    let right = 0;
    let total = 0;
    for (const { codePages, words } of Object.values(SCRIPTS))
      for (const codePage of codePages)
        for (let seed = 1; seed <= 300; seed++) {
          const rows = 3 + (seed % 40);
          total++;
          if (readsRight(mostlyEnglish(words, rows, 1 + (seed % Math.min(rows, 5)), seed * 7919), codePage)) right++;
        }
    expect(total).toBe(2100);
    expect(right / total).toBeGreaterThanOrEqual(0.9);
  });

  it('reads Hebrew with a gershayim after a letter (ש״ח) as windows-1255, and never as DOS Cyrillic', () => {
    const text = 'id,name,price\n1,John Smith,10\n2,משה כהן,20 ש״ח\n3,Mary Jones,5\n4,דוד לוי,7 ש״ח\n';
    expect(detectEncoding(iconv.encode(text, 'windows-1255'))).toBe('windows-1255');
    expect(detectEncoding(iconv.encode('id,name\n1,John Smith\n2,דוד כהן\n', 'windows-1255'))).toBe('windows-1255');
  });

  it('keeps ISO-8859-7 Greek with its quotation marks and euro sign ISO-8859-7 (they are Ά and ¤ in windows-1253)', () => {
    const text = 'id,note\n1,‘Αθήνα’ 10€\n2,σ’αγαπώ\n3,απ’ την Ελλάδα\n';
    expect(detectEncoding(iconv.encode(text, 'iso-8859-7'))).toBe('iso-8859-7');
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
    // Runs of signs make words past ASCII too: rules, ratings, price levels, masked numbers and passwords, fractions.
    ['windows-1252', 'item,note\n———,•••\n€€€,±°½\n———,•••\nSmith,London\n'],
    ['windows-1252', `id,card\n${Array.from({ length: 30 }, (_, i) => `${i},•••• •••• •••• ${4000 + i}`).join('\n')}\n`],
    ['windows-1252', 'u,p\nbob,••••••\nann,••••••••\nJosé,••••\n'],
    ['windows-1252', 'name,price\nBistro,€€\nCafé,€€€\nPub,£££\nInn,€€€€\n'],
    ['windows-1252', 'id,note\n1,“…”\n2,“…”\n3,–––\n4,ok\n'],
    ['windows-1252', 'id,size\n1,½¼¾\n2,¼½¾\n3,ok\n'],
  ])('%s: %j', (codePage, text) => {
    const sample = iconv.encode(text, codePage);
    expect(wordsOfAnotherScript(sample, readable(sample))).toBeNull();
    // Read as it was written (bullets are the same byte in windows-1250).
    expect(iconv.decode(sample, detectEncoding(sample))).toBe(text);
  });

  it('needs two words of another script: one name alone among English rows tells too little', () => {
    const sample = iconv.encode('id,name\n1,John Smith\n2,Иван\n3,Mary Jones\n', 'windows-1251');
    expect(wordsOfAnotherScript(sample, readable(sample))).toBeNull();
  });

  it('does not read as DOS Cyrillic bytes that are no letters there (B0 draws a box in ibm866)', () => {
    const sample = Buffer.from('a,b,\x81\x8d\x8f\xb0\n'.repeat(50), 'latin1');
    expect(wordsOfAnotherScript(sample, () => true)).toBeNull();
    expect(wordsOfAnotherScript(iconv.encode('a,b,Иван Петров\n'.repeat(50), 'ibm866'), () => true)).toBe('ibm866');
  });
});
