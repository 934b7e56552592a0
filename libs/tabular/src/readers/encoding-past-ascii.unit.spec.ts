import iconv from 'iconv-lite';
import { encodingPastAscii } from './encoding-past-ascii';
import { SAMPLE_BYTES } from './delimited-reader';

/** The bytes in pieces of `size`, as a stored file or a connection hands them over. */
async function* inPieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Rows of plain ASCII past the first SAMPLE_BYTES, then `tail`. */
const lateTail = (tail: string, encoding: string): Buffer => {
  const rows: string[] = [];
  for (let i = 0; rows.join('\n').length < SAMPLE_BYTES + 5_000; i++) rows.push(`person${i}@example.org,Person ${i},Rome`);
  return Buffer.concat([Buffer.from(rows.join('\n') + '\n'), iconv.encode(tail, encoding)]);
};

const ITALIAN =
  'anna@example.org,Anna,Città\nluca@example.org,Luca,Forlì\nmarco@example.org,Marco,Cantù\nsara@example.org,Sara,Perché no\n';

describe('the code page of a file whose first 64 KiB are ASCII', () => {
  it('is told from the bytes past them, however the file is cut into pieces', async () => {
    const file = lateTail(ITALIAN, 'windows-1252');
    for (const size of [1, 1000, 64 * 1024, 1024 * 1024]) {
      if (size === 1 && file.length > 200_000) continue;
      await expect(encodingPastAscii(inPieces(file, size))).resolves.toBe('windows-1252');
    }
    // The file's one letter past ASCII is its last: the ASCII before it is what detection reads it by.
    await expect(encodingPastAscii(inPieces(lateTail('nic@example.org,Nic,Città\n', 'windows-1252'), 4096))).resolves.toBe('windows-1252');
    await expect(encodingPastAscii(inPieces(lateTail('Иван,Москва,улица Ленина\n'.repeat(40), 'windows-1251'), 4096))).resolves.toBe(
      'windows-1251',
    );
  });

  it('is none when detection saw a letter past ASCII, when there is none, or when the later text reads as UTF-8', async () => {
    // A letter past ASCII inside the first 64 KiB: detection looked at it, and its answer stands.
    const early = Buffer.concat([iconv.encode(ITALIAN, 'windows-1252'), lateTail('', 'utf-8')]);
    await expect(encodingPastAscii(inPieces(early, 4096))).resolves.toBeNull();
    await expect(encodingPastAscii(inPieces(lateTail('', 'utf-8'), 4096))).resolves.toBeNull();
    // UTF-8 with one broken byte after many good letters: a UTF-8 file that is damaged, refused as it was.
    const damaged = Buffer.concat([lateTail(ITALIAN.repeat(20), 'utf-8'), Buffer.from([0xe0, 0x41, 0x0a])]);
    await expect(encodingPastAscii(inPieces(damaged, 4096))).resolves.toBeNull();
    await expect(encodingPastAscii(inPieces(lateTail(ITALIAN, 'utf-8'), 4096))).resolves.toBeNull();
    // One stray windows-1252 byte first, then 64 KiB of ASCII, then many good UTF-8 letters: UTF-8 with a broken byte,
    // though the 64 KiB from the stray byte hold no letter past ASCII to say so.
    const strayThenUtf8 = Buffer.concat([lateTail('', 'utf-8'), Buffer.from([0xe9, 0x0a]), lateTail(ITALIAN.repeat(10), 'utf-8')]);
    await expect(encodingPastAscii(inPieces(strayThenUtf8, 4096))).resolves.toBeNull();
    // UTF-16 read without its mark: ASCII bytes and NULs, then letters past ASCII. Not a code page's text.
    const utf16 = iconv.encode(`${'a,b\n'.repeat(20_000)}${ITALIAN}`, 'utf-16le');
    await expect(encodingPastAscii(inPieces(utf16, 4096))).resolves.toBeNull();
    const withNul = Buffer.concat([Buffer.from('a,b\u0000\n'), lateTail(ITALIAN, 'windows-1252')]);
    await expect(encodingPastAscii(inPieces(withNul, 4096))).resolves.toBeNull();
    // A NUL far past the first letter past ASCII: refused whatever the pieces' size.
    const lateNul = Buffer.concat([
      lateTail(ITALIAN, 'windows-1252'),
      iconv.encode(ITALIAN.repeat(2_000), 'windows-1252'),
      Buffer.from('x\u0000\n'),
    ]);
    for (const size of [4096, 60 * 1024, 1024 * 1024]) await expect(encodingPastAscii(inPieces(lateNul, size))).resolves.toBeNull();
  });
});

describe('a file of two-byte characters whose first 64 KiB are ASCII', () => {
  // Codes and prices first, names later: a product or customer list exported from a Japanese, Chinese or Korean system.
  const TAILS: [encoding: string, expected: string, text: string][] = [
    ['shift_jis', 'shift_jis', '山田太郎,東京都新宿区,ポイント\n'],
    ['gbk', 'gb18030', '张伟,北京市朝阳区,积分\n'],
    ['big5', 'big5', '陳大文,臺北市中正區,積分\n'],
    ['euc-kr', 'euc-kr', '김민준,서울특별시 강남구,포인트\n'],
  ];

  it.each(TAILS)(
    'is told as %s, wherever the sample around its first letter ends (it was refused, or read as a Latin code page)',
    async (encoding, expected, text) => {
      for (const pad of [0, 1, 2, 3]) {
        const file = lateTail(' '.repeat(pad) + text.repeat(4_000), encoding);
        await expect(encodingPastAscii(inPieces(file, 4096))).resolves.toBe(expected);
      }
    },
  );

  it('is told from a handful of names after the ASCII, with the ASCII before them as context', async () => {
    await expect(encodingPastAscii(inPieces(lateTail('山田太郎,東京都新宿区,ポイント\n'.repeat(5), 'shift_jis'), 4096))).resolves.toBe(
      'shift_jis',
    );
  });
});
