import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { checkContent, utf16WithoutBom } from './content-sniffing';
import { SourceProblem } from './source-problem';

type Utf16 = 'utf-16le' | 'utf-16be';
const encode = (text: string, order: Utf16): Buffer => {
  const le = Buffer.from(text, 'utf16le');
  return order === 'utf-16le' ? le : le.swap16();
};

/** The problem checkContent finds in a .csv, or null when it lets the bytes through. */
function refusal(bytes: Buffer): string | null {
  try {
    checkContent(bytes, 'delimited');
    return null;
  } catch (err) {
    if (!(err instanceof SourceProblem)) throw err;
    return `${err.kind}: ${err.message}`;
  }
}

/** The same `length` bytes of noise for a seed on every run (SHA-256 of a counter). */
const noise = (seed: number, length: number): Buffer =>
  Buffer.concat(Array.from({ length: Math.ceil(length / 32) }, (_, i) => createHash('sha256').update(`${seed}:${i}`).digest())).subarray(
    0,
    length,
  );

describe('UTF-16 without a byte-order mark', () => {
  const tables: [string, string][] = [
    ['Russian', 'Имя,Город,Комментарий\nАнна,Москва,"Привет, мир"\nПётр,Санкт-Петербург,ещё\n'],
    ['Greek', 'Όνομα;Πόλη\nΓιώργος;Αθήνα\nΜαρία;Θεσσαλονίκη\n'],
    ['Chinese', '姓名\t城市\t备注\n张三\t北京\t一个不上不下的人\n李四\t上海\t《红楼梦》\n'],
    ['Japanese', '名前,住所,メモ\n山田太郎,東京都,「こんにちは」\u3000一番\n鈴木花子,大阪府,テスト\n'],
    ['Arabic', 'الاسم,المدينة\nمحمد,القاهرة\nفاطمة,الرياض\n'],
    ['English', 'name,city\nAnn,Paris\n'],
  ];
  const orders: Utf16[] = ['utf-16le', 'utf-16be'];

  it.each(tables.flatMap(([script, text]) => orders.map((order) => [script, order, text] as const)))(
    '%s in %s is let through and its byte order found (a non-Latin script was refused as "binary data")',
    (_script, order, text) => {
      for (const bytes of [encode(text, order), encode(text.repeat(200), order)]) {
        expect(refusal(bytes)).toBeNull();
        expect(utf16WithoutBom(bytes)).toBe(order);
      }
    },
  );

  it('finds the byte order of any table of one script, whatever its cells', () => {
    const scripts = [
      'абвгдеёжзийклмнопрстуфхцчшщъыьэюя',
      'αβγδεζηθικλμνξοπρστυφχψω',
      'مرحباكيفالحالشكرا',
      '東京大阪北京人名住所電話番号',
      'あいうえおかきくけこアイウエオ',
    ];
    const table = fc.constantFrom(...scripts).chain((letters) => {
      const cell = fc.string({ unit: fc.constantFrom(...letters, ...'0123456789 '), minLength: 1, maxLength: 12 });
      const row = fc.array(cell, { minLength: 1, maxLength: 6 });
      return fc.tuple(fc.array(row, { minLength: 2, maxLength: 40 }), fc.constantFrom(',', ';', '\t'), fc.constantFrom('\n', '\r\n'));
    });
    fc.assert(
      fc.property(table, fc.constantFrom(...orders), ([rows, delimiter, eol], order) => {
        const bytes = encode(rows.map((r) => r.join(delimiter) + eol).join(''), order);
        fc.pre(bytes.length >= 16);
        expect(utf16WithoutBom(bytes)).toBe(order);
      }),
    );
  });

  it.each([
    ['noise', noise(1, 4096)],
    ['noise of another seed, past the bytes looked at', noise(2, 64 * 1024)],
    // Read as UTF-16LE: characters U+0001-U+00FF, a quarter of them control characters.
    ['noise with every other byte zero, the shape of Latin UTF-16', Buffer.from([...noise(4, 2048)].flatMap((b) => [b || 1, 0]))],
    ['UTF-8 text padded with zero bytes', Buffer.concat([Buffer.from('Имя,Город\nАнна,Москва\n'.repeat(20)), Buffer.alloc(300)])],
    // Read as UTF-16LE the rows are CJK ideographs with one line break: the other line breaks are lone 0A bytes.
    ['numbers with a zero byte after a line break', Buffer.from('id,amt\n1,2\n\0' + '12,3456\n78,90\n'.repeat(200), 'latin1')],
  ])('%s is still refused as binary data', (_n, bytes) => {
    expect(bytes.includes(0)).toBe(true);
    expect(utf16WithoutBom(bytes)).toBeNull();
    expect(refusal(bytes)).toMatch(/^contentMismatch: .*binary data/);
  });

  it('no noise of 16 bytes to 4 KiB with zero bytes in it is taken for UTF-16', () => {
    for (let seed = 0; seed < 2000; seed++) {
      const bytes = noise(seed, 16 + ((seed * 97) % 4080));
      for (let i = seed % 7; i < bytes.length; i += 23) bytes[i] = 0;
      expect(utf16WithoutBom(bytes)).toBeNull();
    }
  });
});

describe('UTF-32 with its byte-order mark', () => {
  it('is refused as unsupported, not read as UTF-16 with NULs in every value (little-endian) nor called binary (big-endian)', () => {
    const text = 'a,b\n1,2\n';
    const le = Buffer.alloc(4 * (text.length + 1));
    const be = Buffer.alloc(4 * (text.length + 1));
    [0xfeff, ...[...text].map((c) => c.codePointAt(0)!)].forEach((code, i) => {
      le.writeUInt32LE(code, 4 * i);
      be.writeUInt32BE(code, 4 * i);
    });
    const utf32 = 'unsupportedFormat: The file is UTF-32 text, which is not supported. Save it as UTF-8.';
    expect(refusal(le)).toBe(utf32);
    expect(refusal(be)).toBe(utf32);
    // UTF-16LE's mark followed by text is still UTF-16.
    expect(refusal(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))).toBeNull();
  });
});
