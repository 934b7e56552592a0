import { isAscii } from 'node:buffer';
import { SAMPLE_BYTES } from './delimited-reader';
import { SourceProblem } from './source-problem';
import { detectEncoding, isEastAsianCodePage, isSingleByteCodePage, Utf8Tally } from './text-decoding';

/** ASCII kept before the first byte past it, in the sample detection reads: its words are context for the letters after. */
const CONTEXT_BYTES = SAMPLE_BYTES / 2;

/**
 * The code page of a text file whose first SAMPLE_BYTES are plain ASCII, told from the bytes where
 * its first letter past ASCII is; null when there is none to tell.
 *
 * The encoding is detected from a file's first 64 KiB, and ASCII reads as UTF-8. A list in
 * windows-1252 whose first accented name comes later ("Città" on row 7,500 of 8,000) was read as
 * UTF-8 and failed there as text that is not UTF-8, though it is in one encoding throughout. Its
 * bytes before that letter are ASCII, which every code page reads alike, so the file is the code
 * page its later bytes say: detected by the rules that detect it at the top, from 64 KiB around the
 * first byte past ASCII (32 KiB of the ASCII before it: a file whose only letter past ASCII is its
 * last gives detection nothing to go on without the text around it). Whatever that sample says, a file whose bytes past ASCII are
 * mostly well-formed UTF-8 over the rest of the file (more than ten well-formed characters to each
 * broken sequence, detection's own line) is UTF-8 with broken bytes, and stays refused: read in a
 * code page, every one of its good letters would be garbled. A Japanese, Chinese or Korean code page
 * (Shift_JIS, GB18030, Big5, EUC-KR, EUC-JP) counts as well as one of a byte a character: a product list
 * whose first 64 KiB are codes and prices and whose names come later is in one of them throughout.
 *
 * Reads the file to its end from the first byte past ASCII (only when the run would fail otherwise).
 */
export async function encodingPastAscii(bytes: AsyncIterable<Buffer>): Promise<string | null> {
  let offset = 0;
  // The ASCII just before the first byte past it: context for detection when few letters past ASCII follow.
  const recent: Buffer[] = [];
  let recentBytes = 0;
  const sample: Buffer[] = [];
  let sampled = 0;
  let found = false;
  const utf8 = new Utf8Tally();
  for await (const chunk of bytes) {
    let from = chunk;
    // NUL bytes are no text of a code page: a file with them was read as UTF-16, or is no text file at all. Looked for
    // in every piece to the end: checked only up to the piece of the first byte past ASCII, how far it looked was the
    // pieces' size (a NUL 100 KB after that byte was seen in pieces of 1 MiB, not in pieces of 60 KiB).
    if (chunk.includes(0)) return null;
    if (!found) {
      if (isAscii(chunk)) {
        offset += chunk.length;
        recent.push(chunk);
        recentBytes += chunk.length;
        while (recentBytes - recent[0].length >= CONTEXT_BYTES) recentBytes -= recent.shift()!.length;
        continue;
      }
      const first = firstPastAscii(chunk);
      // Detection saw a letter past ASCII in its sample: its answer stands.
      if (offset + first < SAMPLE_BYTES) return null;
      found = true;
      const lead = Buffer.concat([...recent, chunk.subarray(0, first)]);
      sample.push(lead.subarray(Math.max(0, lead.length - CONTEXT_BYTES)));
      sampled = sample[0].length;
      from = chunk.subarray(first);
    }
    if (sampled < SAMPLE_BYTES) {
      sample.push(from);
      sampled += from.length;
    }
    utf8.add(from);
  }
  if (!found || utf8.mostlyWellFormed()) return null;
  let encoding: string;
  try {
    encoding = detectEncoding(Buffer.concat(sample).subarray(0, SAMPLE_BYTES));
  } catch (err) {
    if (err instanceof SourceProblem) return null;
    throw err;
  }
  return isSingleByteCodePage(encoding) || isEastAsianCodePage(encoding) ? encoding : null;
}

function firstPastAscii(chunk: Buffer): number {
  for (let i = 0; i < chunk.length; i++) if (chunk[i] >= 0x80) return i;
  return -1;
}
