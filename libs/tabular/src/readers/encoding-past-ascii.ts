import { isAscii } from 'node:buffer';
import { SAMPLE_BYTES } from './delimited-reader';
import { SourceProblem } from './source-problem';
import { detectEncoding, isSingleByteCodePage } from './text-decoding';

/**
 * The code page of a text file whose first SAMPLE_BYTES are plain ASCII, told from the bytes where
 * its first letter past ASCII is; null when there is none to tell.
 *
 * The encoding is detected from a file's first 64 KiB, and ASCII reads as UTF-8. A list in
 * windows-1252 whose first accented name comes later ("Città" on row 7,500 of 8,000) was read as
 * UTF-8 and failed there as text that is not UTF-8, though it is in one encoding throughout. Its
 * bytes before that letter are ASCII, which every code page reads alike, so the file is the code
 * page its later bytes say: detected from the 64 KiB that begin at the first byte past ASCII, by
 * the rules that detect it at the top (a sample that reads as UTF-8, or as UTF-8 with a few broken
 * sequences, is UTF-8: the file is refused as it was).
 *
 * Reads up to that letter and 64 KiB past it: the whole file only when it is ASCII to the end.
 */
export async function encodingPastAscii(bytes: AsyncIterable<Buffer>): Promise<string | null> {
  let offset = 0;
  const sample: Buffer[] = [];
  let sampled = 0;
  for await (const chunk of bytes) {
    if (sample.length === 0) {
      if (isAscii(chunk)) {
        offset += chunk.length;
        continue;
      }
      const first = firstPastAscii(chunk);
      // Detection saw a letter past ASCII in its sample: its answer stands.
      if (offset + first < SAMPLE_BYTES) return null;
      const from = chunk.subarray(first);
      sample.push(from);
      sampled = from.length;
    } else {
      sample.push(chunk);
      sampled += chunk.length;
    }
    if (sampled >= SAMPLE_BYTES) break;
  }
  if (sample.length === 0) return null;
  let encoding: string;
  try {
    encoding = detectEncoding(Buffer.concat(sample).subarray(0, SAMPLE_BYTES));
  } catch (err) {
    if (err instanceof SourceProblem) return null;
    throw err;
  }
  return isSingleByteCodePage(encoding) ? encoding : null;
}

function firstPastAscii(chunk: Buffer): number {
  for (let i = 0; i < chunk.length; i++) if (chunk[i] >= 0x80) return i;
  return -1;
}
