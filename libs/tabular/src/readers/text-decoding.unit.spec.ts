import fc from 'fast-check';
import iconv from 'iconv-lite';
import { decodeText, detectEncoding, Utf8Tally } from './text-decoding';
import { SourceProblem } from './source-problem';

async function* oneChunk(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

async function texts(bytes: Buffer, encoding: string): Promise<string[]> {
  const out: string[] = [];
  for await (const text of decodeText(oneChunk(bytes), encoding)) out.push(text);
  return out;
}

const KIB = 1024;

describe('decodeText on chunks larger than it decodes at once', () => {
  // Two-byte UTF-8 characters from the first byte, so one of them straddles every 32 KiB boundary
  // (32,768 is even; a leading "x" shifts every pair by one).
  const utf8 = 'x' + 'é'.repeat(200 * KIB) + ' fin';

  it('gives the same text as a decode of the whole chunk, characters split between two views kept whole', async () => {
    const out = await texts(Buffer.from(utf8), 'utf-8');
    expect(out.join('')).toBe(utf8);
    expect(out.length).toBeGreaterThan(1);
  });

  it('gives no text longer than 32 Ki characters, whatever the chunk (a 1 MiB chunk was one string)', async () => {
    const ascii = Buffer.alloc(KIB * KIB, 'a');
    const out = await texts(ascii, 'utf-8');
    expect(out.join('').length).toBe(KIB * KIB);
    expect(Math.max(...out.map((t) => t.length))).toBeLessThanOrEqual(32 * KIB);
  });

  it('decodes a legacy code page in the same views, and UTF-16 with a pair split between two', async () => {
    const latin = 'Köln, Müller; '.repeat(20_000);
    expect((await texts(iconv.encode(latin, 'windows-1252'), 'windows-1252')).join('')).toBe(latin);
    const utf16 = 'a' + '😀'.repeat(40 * KIB);
    expect((await texts(Buffer.from(utf16, 'utf16le'), 'utf-16le')).join('')).toBe(utf16);
  });

  it('names the exact byte of an invalid sequence far into a large chunk, not where its 32 KiB view starts', async () => {
    const bytes = Buffer.concat([Buffer.alloc(300 * KIB, 'a'), Buffer.from([0xff]), Buffer.alloc(10, 'b')]);
    expect(await brokenByteOf(oneChunk(bytes), 'utf-8')).toBe(300 * KIB);
  });
});

/** The byte offset an `encodingInvalid` problem names, or null when the bytes decode. */
async function brokenByteOf(bytes: AsyncIterable<Buffer>, encoding: string): Promise<number | null> {
  try {
    for await (const text of decodeText(bytes, encoding)) void text;
    return null;
  } catch (err) {
    if (!(err instanceof SourceProblem) || err.kind !== 'encodingInvalid') throw err;
    const at = /at byte (\d+)/.exec(err.message);
    if (!at) throw new Error(`no byte named: ${err.message}`, { cause: err });
    return Number(at[1]);
  }
}

async function* inChunks(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b)) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

/** Text of one- to four-byte UTF-8 characters (and two- or four-byte UTF-16 ones). */
const unicodeText = fc.string({ unit: fc.constantFrom('a', ',', 'é', 'ß', '€', '中', '😀', '\n'), maxLength: 300 });

describe('decodeText names the first byte that breaks the encoding, however the file is cut into chunks', () => {
  /** Broken UTF-8 sequences, and where the break is counted from (the sequence's first byte). */
  const brokenUtf8 = fc.constantFrom(
    Buffer.from([0xff]), // never in UTF-8
    Buffer.from([0x80]), // a continuation byte without its lead
    Buffer.from([0xc3, 0x41]), // a lead byte followed by ASCII
    Buffer.from([0xe2, 0x82, 0x41]), // a three-byte character cut short
    Buffer.from([0xed, 0xa0, 0x80]), // a surrogate written as UTF-8
  );

  it('UTF-8: the first byte of the broken sequence', async () => {
    await fc.assert(
      fc.asyncProperty(
        unicodeText,
        brokenUtf8,
        unicodeText,
        fc.array(fc.nat(2000), { maxLength: 6 }),
        async (before, broken, after, cuts) => {
          const good = Buffer.from(before, 'utf8');
          const bytes = Buffer.concat([good, broken, Buffer.from(after, 'utf8')]);
          expect(await brokenByteOf(inChunks(bytes, cuts), 'utf-8')).toBe(good.length);
        },
      ),
    );
  });

  it('UTF-8: a character cut by the end of the file, named where it starts', async () => {
    await fc.assert(
      fc.asyncProperty(unicodeText, fc.array(fc.nat(2000), { maxLength: 6 }), async (before, cuts) => {
        const good = Buffer.from(before, 'utf8');
        const bytes = Buffer.concat([good, Buffer.from('😀', 'utf8').subarray(0, 3)]);
        expect(await brokenByteOf(inChunks(bytes, cuts), 'utf-8')).toBe(good.length);
      }),
    );
  });

  it.each(['utf-16le', 'utf-16be'] as const)(
    '%s: a surrogate without its pair, or an odd last byte (these were taken, and written differently by the JSON and CSV outputs)',
    async (encoding) => {
      const encode = (text: string): Buffer => {
        const le = Buffer.from(text, 'utf16le');
        return encoding === 'utf-16le' ? le : Buffer.from(le).swap16();
      };
      const unit = (code: number): Buffer => encode(String.fromCharCode(code));
      await fc.assert(
        fc.asyncProperty(
          unicodeText,
          fc.constantFrom('high then text', 'low alone', 'high at the end', 'odd byte'),
          unicodeText,
          fc.array(fc.nat(2000), { maxLength: 6 }),
          async (before, kind, after, cuts) => {
            const good = encode(before);
            const rest = kind === 'high at the end' || kind === 'odd byte' ? Buffer.alloc(0) : encode(after);
            const broken =
              kind === 'high then text'
                ? Buffer.concat([unit(0xd800), encode('x')])
                : kind === 'low alone'
                  ? unit(0xdc00)
                  : kind === 'high at the end'
                    ? unit(0xd83d)
                    : Buffer.from([0x41]);
            const bytes = Buffer.concat([good, broken, rest]);
            expect(await brokenByteOf(inChunks(bytes, cuts), encoding)).toBe(good.length);
          },
        ),
      );
    },
  );

  it('valid text decodes whole in every encoding, whatever the cuts', async () => {
    await fc.assert(
      fc.asyncProperty(unicodeText, fc.array(fc.nat(2000), { maxLength: 6 }), async (text, cuts) => {
        for (const [encoding, bytes] of [
          ['utf-8', Buffer.from(text, 'utf8')],
          ['utf-16le', Buffer.from(text, 'utf16le')],
          ['utf-16be', Buffer.from(text, 'utf16le').swap16()],
        ] as const) {
          const out: string[] = [];
          for await (const piece of decodeText(inChunks(bytes, cuts), encoding)) out.push(piece);
          expect(out.join('')).toBe(text);
        }
      }),
    );
  });
});

describe('decodeText on UTF-8 whose plain-ASCII slices skip the decoder', () => {
  /** Runs of plain ASCII between characters of two to four bytes, U+FEFF among them: slices of ASCII alone, and slices cut inside a character. */
  const mixedText = fc
    .array(fc.oneof(fc.string({ unit: fc.constantFrom('a', ',', '"', '\n'), maxLength: 60 }), fc.constantFrom('é', '€', '😀', '\uFEFF')), {
      maxLength: 40,
    })
    .map((parts) => parts.join(''));
  const cutsIn = fc.array(fc.nat(400), { maxLength: 12 });

  it("gives the platform decoder's text of the whole file, a byte-order mark taken away at the top only", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), mixedText, cutsIn, fc.boolean(), async (marked, text, cuts, fromMiddle) => {
        const bytes = Buffer.concat([Buffer.from(marked ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'utf8')]);
        const out: string[] = [];
        for await (const piece of decodeText(inChunks(bytes, cuts), 'utf-8', fromMiddle)) out.push(piece);
        expect(out.join('')).toBe(new TextDecoder('utf-8', { ignoreBOM: fromMiddle }).decode(bytes));
      }),
    );
  });

  it('keeps U+FEFF met after a first slice of ASCII, and one after an empty first chunk is still the mark', async () => {
    const decoded = async (chunks: Buffer[]) => {
      const out: string[] = [];
      async function* given() {
        yield* chunks;
      }
      for await (const piece of decodeText(given(), 'utf-8')) out.push(piece);
      return out.join('');
    };
    const mark = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await decoded([Buffer.from('a,b\n'), Buffer.from('c,d\n'), Buffer.concat([mark, Buffer.from('e')])])).toBe('a,b\nc,d\n\uFEFFe');
    expect(await decoded([Buffer.alloc(0), Buffer.concat([mark, Buffer.from('a')]), Buffer.from('b')])).toBe('ab');
  });

  it('names the first broken byte after slices of ASCII, and a character cut short by the slice before', async () => {
    await fc.assert(
      fc.asyncProperty(
        mixedText,
        fc.constantFrom([0xff], [0x80], [0xc3, 0x41], [0xe2, 0x82, 0x41]),
        mixedText,
        cutsIn,
        async (before, broken, after, cuts) => {
          const good = Buffer.from(before, 'utf8');
          const bytes = Buffer.concat([good, Buffer.from(broken), Buffer.from(after, 'utf8')]);
          expect(await brokenByteOf(inChunks(bytes, cuts), 'utf-8')).toBe(good.length);
        },
      ),
    );
  });
});

describe('decodeText on UTF-8 past ASCII, decoded by V8 once checked', () => {
  it('hands the platform decoder only its first slice and the few bytes of characters cut between slices', async () => {
    // Two-byte characters from the second byte, so one straddles every 32 KiB boundary of the one chunk.
    const text = 'x' + 'é'.repeat(200 * KIB) + ' fin';
    const decode = jest.spyOn(TextDecoder.prototype, 'decode');
    try {
      expect((await texts(Buffer.from(text), 'utf-8')).join('')).toBe(text);
      const given = decode.mock.calls.map(([input]) => (input as Uint8Array | undefined)?.byteLength ?? 0);
      expect(given[0]).toBe(32 * KIB);
      expect(given.length).toBeGreaterThan(10); // a character cut at each of the 12 boundaries after the first
      expect(Math.max(...given.slice(1))).toBeLessThanOrEqual(3);
    } finally {
      decode.mockRestore();
    }
  });

  /** Sequences that are not UTF-8 but begin as a character would: cut by a slice's end, they look unfinished. */
  const brokenLikeUnfinished = fc.constantFrom(
    [0xed, 0xa0, 0x80], // a surrogate
    [0xe0, 0x80, 0x80], // an overlong form
    [0xc0, 0xaf], // an overlong form of a two-byte character
    [0xf5, 0x80, 0x80, 0x80], // past U+10FFFF
    [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF, with a first byte that may begin a character
    [0xf0, 0x90, 0x41], // a four-byte character cut short by ASCII
    [0xe2, 0x82], // a three-byte character cut short by the next one
  );
  const textPastAscii = fc.string({ unit: fc.constantFrom('a', ',', 'é', 'ı', '€', '中', '😀', '\n'), maxLength: 200 });

  it('names the first byte of a broken sequence wherever the slices cut it, as the platform decoder did', async () => {
    await fc.assert(
      fc.asyncProperty(
        textPastAscii,
        brokenLikeUnfinished,
        textPastAscii,
        fc.array(fc.nat(1000), { maxLength: 8 }),
        fc.array(fc.integer({ min: -3, max: 4 }), { maxLength: 3 }),
        async (before, broken, after, cuts, nearBreak) => {
          const good = Buffer.from(before, 'utf8');
          const bytes = Buffer.concat([good, Buffer.from(broken), Buffer.from('é' + after, 'utf8')]);
          const at = [...cuts, ...nearBreak.map((d) => good.length + d)];
          expect(await brokenByteOf(inChunks(bytes, at), 'utf-8')).toBe(good.length);
        },
      ),
    );
  });

  it("gives the platform decoder's text of the whole file for any cuts, empty pieces and a byte-order mark anywhere among them", async () => {
    const withMark = fc.string({ unit: fc.constantFrom('a', ',', 'é', 'ı', '€', '中', '😀', '\uFEFF'), maxLength: 200 });
    await fc.assert(
      fc.asyncProperty(withMark, fc.array(fc.nat(1000), { maxLength: 12 }), fc.boolean(), async (text, cuts, fromMiddle) => {
        const bytes = Buffer.from(text, 'utf8');
        async function* withEmptyPieces(): AsyncGenerator<Buffer> {
          let from = 0;
          for (const cut of cuts.map((c) => Math.min(c, bytes.length)).sort((a, b) => a - b)) {
            yield bytes.subarray(from, cut); // a repeated cut is an empty piece
            from = cut;
          }
          yield bytes.subarray(from);
        }
        const out: string[] = [];
        for await (const piece of decodeText(withEmptyPieces(), 'utf-8', fromMiddle)) out.push(piece);
        expect(out.join('')).toBe(new TextDecoder('utf-8', { ignoreBOM: fromMiddle }).decode(bytes));
      }),
    );
  });
});

describe('decodeText in a code page of several bytes a character', () => {
  it('counts the bytes before an undefined one, not the characters', async () => {
    const good = iconv.encode('名前,住所\n東京都,日本語テキスト\n'.repeat(20), 'shift_jis');
    const bytes = Buffer.concat([good, Buffer.from([0xa0]), Buffer.from('x\n')]);
    let message = '';
    try {
      for await (const text of decodeText(oneChunk(bytes), 'shift_jis')) void text;
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`not valid shift_jis (near byte ${good.length},`);
  });
});

describe('detectEncoding on a sample that is not valid UTF-8', () => {
  const accents = 'Zoë,Müller,Café,Ångström,Łódź,Straße\n';

  it('refuses a UTF-8 file with one broken byte among many good characters, naming the byte (it was read as windows-1252, every accent garbled)', () => {
    const head = Buffer.from(`name,city\n${accents.repeat(3)}`, 'utf8');
    const sample = Buffer.concat([head, Buffer.from([0xe9]), Buffer.from(`,x\n${accents.repeat(50)}`, 'utf8')]);
    let problem: unknown;
    try {
      detectEncoding(sample);
    } catch (err) {
      problem = err;
    }
    expect(problem).toBeInstanceOf(SourceProblem);
    expect((problem as SourceProblem).kind).toBe('encodingInvalid');
    expect((problem as SourceProblem).message).toContain(`not valid UTF-8 (at byte ${head.length},`);
  });

  it('still reads legacy text as its code page, also when a pair of its bytes happens to be well-formed UTF-8 ("ß“")', () => {
    expect(detectEncoding(iconv.encode('Straße „Fuß“, Müller, Köln\n'.repeat(20), 'windows-1252'))).toBe('windows-1252');
    expect(detectEncoding(iconv.encode('„Fuß“ Müller\n', 'windows-1252'))).toBe('windows-1252');
    expect(detectEncoding(iconv.encode('Café crème, à la française, déjà vu\n'.repeat(40), 'windows-1252'))).toBe('windows-1252');
    expect(detectEncoding(iconv.encode('Зёрна, Ёлка, «Привет», Москва\n'.repeat(40), 'windows-1251'))).toBe('windows-1251');
    // Polish capitals: "ÓŁ" of SPÓŁKA is D3 A3 in windows-1250, a well-formed UTF-8 pair, in every row of a list of companies.
    const companies = ['KOWALSKI', 'NOWAK', 'WIŚNIEWSKI', 'MAZUR', 'KRÓL'].map((n, i) => `${5260000000 + i};${n} SPÓŁKA JAWNA;WARSZAWA`);
    expect(detectEncoding(iconv.encode(`NIP;NAZWA;MIASTO\r\n${companies.join('\r\n').repeat(40)}\r\n`, 'windows-1250'))).toBe(
      'windows-1250',
    );
  });
});

describe('detectEncoding between windows-1252 and windows-1254 (Turkish), which read six bytes differently (Ð Ý Þ ð ý þ, Ğ İ Ş ğ ı ş)', () => {
  const decoded = async (bytes: Buffer): Promise<string> => (await texts(bytes, detectEncoding(bytes))).join('');

  it.each([
    [
      'Icelandic names beside Western ones, with a euro sign',
      'Nafn;Bær\nÞór Þórðarson;Þórshöfn\nÝr Þráinsdóttir;Höfn\nÞvottavél;45.000 €\nRené Müller;Zürich\n',
    ],
    ['Icelandic with curly quotes', 'Nafn;Bær\nGuðrún;Reykjavík\n“1.200 €”\nÝr Þráinsdóttir;Höfn\nÝsa;“ný”\n'],
    [
      'a list of Icelandic names, no C1 bytes',
      'Nafn;Bær\nÞór Þórðarson;Þórshöfn\nÝr Þráinsdóttir;Höfn\nÞórey Ýmisdóttir;Þingeyri\n'.repeat(30),
    ],
  ])('reads %s as windows-1252, its Þ Ð Ý ð ý þ kept (chardet scored Turkish higher, and they became Ş Ğ İ ş ğ ı)', async (_n, text) => {
    const bytes = iconv.encode(text, 'windows-1252');
    expect(detectEncoding(bytes)).toBe('windows-1252');
    expect(await decoded(bytes)).toBe(text);
  });

  it.each([
    ['names', 'Ad,Soyad,Şehir\nŞükrü,Güneş,İstanbul\nAyşe,Yılmaz,Eskişehir\nÇağrı,Doğan,Muğla\nFatma,Kılıç,İzmir\n'],
    [
      'capitals (chardet tied, and windows-1252 read İ as Ý)',
      'MÜŞTERİ;ADRES;İL\nAHMET YILDIRIM;ATATÜRK CAD. NO:5;İSTANBUL\nELİF ŞEN;CUMHURİYET MAH.;DİYARBAKIR\n',
    ],
    [
      'with a Spanish name and a euro sign',
      'Müşteri,Ülke,Tutar\nJosé García,İspanya,“1.200 €”\nAyşe Yılmaz,Türkiye,850 €\nÇağla Işık,Türkiye,1.000 €\n',
    ],
    [
      'names full of ğ (a review: read as evidence against Turkish, they made Doğan "Doðan")',
      'Ad;Soyad\nDoğan;Ağaoğlu\nTuğba;Erdoğan\nErtuğrul;Dağ\nÇağlar;Oğuz\nBuğra;Yağmur\n',
    ],
    ['addresses', 'Adres;İlçe\nBağdat Cad. 12;Kadıköy\nDeğirmen Sok. 3;Üsküdar\nAtatürk Bulvarı 7;Çankaya\n'],
  ])('reads Turkish %s as windows-1254', async (_n, text) => {
    const bytes = iconv.encode(text.repeat(10), 'windows-1254');
    expect(detectEncoding(bytes)).toBe('windows-1254');
    expect(await decoded(bytes)).toBe(text.repeat(10));
  });

  it('names windows-1252 text without any of the six bytes windows-1252, the two readings being the same', () => {
    expect(detectEncoding(iconv.encode('Straße „Fuß“, Müller, Köln, Zürich — “Grüße” 12 €\n'.repeat(20), 'windows-1252'))).toBe(
      'windows-1252',
    );
  });
});

describe('Utf8Tally: characters past ASCII, well-formed and broken, however the bytes are cut', () => {
  /** What TextDecoder reads from the whole, one piece after the other: the tally's own reading, without its shortcut. */
  const readWhole = (pieces: Buffer[]) => {
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    let wellFormed = 0;
    let broken = 0;
    for (const piece of pieces)
      for (const char of decoder.decode(piece, { stream: true })) {
        if (char === '\uFFFD') broken++;
        else if (char.codePointAt(0)! >= 0x80) wellFormed++;
      }
    return { wellFormed, broken };
  };
  // UTF-8 and bytes of code pages, broken sequences and characters cut short, among runs of ASCII longer than a block.
  const piece = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\uFFFD', '\uFEFF'), maxLength: 40 }).map((text) => Buffer.from(text, 'utf8')),
    fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes.map((b) => b | 0x80))),
    fc.constantFrom(Buffer.from([0xc3]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from([0xed, 0xa0, 0x80])),
    fc.nat(10_000).map((n) => Buffer.alloc(n, 'x')),
    // Continuation bytes alone: after a sequence left open before a block of ASCII, they must not complete it.
    fc.uint8Array({ minLength: 1, maxLength: 3 }).map((bytes) => Buffer.from(bytes.map((b) => 0x80 | (b & 0x3f)))),
  );

  it('breaks a sequence left open at the end of a block when a block of ASCII follows', () => {
    // "€" cut after two bytes at the end of the first 4 KiB block, 4 KiB of ASCII, then its last byte alone.
    const bytes = Buffer.concat([Buffer.alloc(4094, 'x'), Buffer.from([0xe2, 0x82]), Buffer.alloc(4096, 'x'), Buffer.from([0xac])]);
    const tally = new Utf8Tally();
    tally.add(bytes);
    expect(tally.counted()).toEqual({ wellFormed: 0, broken: 2 });
    expect(tally.counted()).toEqual(readWhole([bytes]));
  });

  it('counts what TextDecoder reads from the whole', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(20_000), { maxLength: 6 }), (parts, cuts) => {
        const bytes = Buffer.concat(parts);
        const at = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
        // An empty piece after each (a stream may give one): it neither ends nor breaks a run.
        const pieces = [0, ...at].flatMap((from, i) => [bytes.subarray(from, i < at.length ? at[i] : bytes.length), Buffer.alloc(0)]);
        const tally = new Utf8Tally();
        for (const p of pieces) tally.add(p);
        expect(tally.counted()).toEqual(readWhole(pieces));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('detectEncoding on the first 64 KiB of a file of two-byte characters', () => {
  const words: Record<string, string> = {
    shift_jis: '田中太郎,東京都港区,ポイント',
    gbk: '张伟,北京市朝阳区,积分',
    big5: '陳怡君,臺北市大安區,點數',
    'euc-kr': '김민준,서울특별시,포인트',
  };
  /** About 70 KB of rows, with `pad` spaces after the header: which byte the 64 KiB sample ends on moves with it. */
  const file = (encoding: string, pad: number) => {
    const rows = ['id,name,city,note\n' + ' '.repeat(pad)];
    for (let i = 1, bytes = 0; bytes < 70_000; i++) {
      rows.push(`${i},${words[encoding]}\n`);
      bytes += iconv.encode(rows[rows.length - 1], encoding).length;
    }
    return iconv.encode(rows.join(''), encoding);
  };
  const cutMidCharacter = (bytes: Buffer, encoding: string) => iconv.decode(bytes.subarray(0, 64 * KIB), encoding).endsWith('\uFFFD');

  it.each(Object.keys(words))(
    'names %s whether or not the sample ends inside a character (it was read as a Latin or Cyrillic code page)',
    (encoding) => {
      const files = [0, 1, 2, 3].map((pad) => file(encoding, pad));
      // Both kinds of cut are among the four.
      expect(files.some((f) => cutMidCharacter(f, encoding))).toBe(true);
      expect(files.some((f) => !cutMidCharacter(f, encoding))).toBe(true);
      // chardet names GBK text by its superset.
      const named = encoding === 'gbk' ? 'gb18030' : encoding;
      for (const f of files) expect(detectEncoding(f.subarray(0, 64 * KIB))).toBe(named);
    },
  );
});
