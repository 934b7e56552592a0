import iconv from 'iconv-lite';
import { decodeText } from './text-decoding';
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

  it('names the byte near an invalid sequence far into a large chunk, within its 32 KiB view', async () => {
    const bytes = Buffer.concat([Buffer.alloc(300 * KIB, 'a'), Buffer.from([0xff]), Buffer.alloc(10, 'b')]);
    const failure = await texts(bytes, 'utf-8').then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(SourceProblem);
    const near = Number(/near byte (\d+)/.exec((failure as SourceProblem).message)?.[1]);
    // The view that holds the bad byte starts at 288 KiB: the decoder's error names where that view starts.
    expect(near).toBe(288 * KIB);
  });
});
