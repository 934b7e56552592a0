import chardet from 'chardet';
import iconv from 'iconv-lite';
import { utf16WithoutBom } from './content-sniffing';
import { SourceProblem } from './source-problem';

/** ISO names chardet reports, read as their Windows supersets (the WHATWG Encoding Standard does the same). */
const ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  'iso-8859-2': 'windows-1250',
  'iso-8859-5': 'windows-1251',
  'iso-8859-6': 'windows-1256',
  'iso-8859-9': 'windows-1254',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
};
/**
 * The code pages of the review languages (Western European, Polish/Central European,
 * Arabic) and Cyrillic. On a short sample chardet's scores are close; a candidate from
 * this list within 80% of the best score wins over a rarer code page.
 */
const PREFERRED = new Set(['windows-1252', 'windows-1250', 'windows-1256', 'windows-1251']);
const CLOSE_CALL = 0.8;

function guessLegacyEncoding(sample: Buffer): string | null {
  const candidates = chardet
    .analyse(sample)
    .map((c) => ({ name: ALIASES[c.name.toLowerCase()] ?? c.name.toLowerCase(), confidence: c.confidence }))
    .filter((c) => c.confidence > 0 && c.name !== 'utf-8' && iconv.encodingExists(c.name))
    // A code page under which the sample has undefined bytes cannot be the file's.
    .filter((c) => !iconv.decode(sample, c.name).includes('\uFFFD'));
  if (candidates.length === 0) return null;
  const best = candidates[0];
  const preferred = candidates.find((c) => PREFERRED.has(c.name) && c.confidence >= best.confidence * CLOSE_CALL);
  return (preferred ?? best).name;
}

const isValidUtf8 = (bytes: Buffer): boolean => {
  try {
    // stream: true lets a multi-byte character cut at the end of the sample pass.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * The encoding of a text file from its first bytes: a byte-order mark if there is one
 * (UTF-8, UTF-16 LE/BE); UTF-8 when the sample is valid UTF-8 (ASCII included); else
 * chardet's best guess among the legacy code pages (e.g. windows-1252, windows-1250).
 */
export function detectEncoding(sample: Buffer): string {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf-8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf-16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf-16be';
  const utf16 = utf16WithoutBom(sample);
  if (utf16) return utf16;
  if (isValidUtf8(sample)) return 'utf-8';
  const name = guessLegacyEncoding(sample);
  if (!name) throw new SourceProblem('encodingInvalid', "The file's text encoding could not be recognised. Save it as UTF-8.");
  return name;
}

/** A code page of one byte per character (what detectEncoding gives for legacy files of the review languages). */
export function isSingleByteCodePage(encoding: string): boolean {
  return /^(windows-125\d|iso-8859-\d{1,2}|koi8-[ru]|ibm866|macintosh)$/.test(encoding);
}

/**
 * Bytes decoded into one string at most. A stored file arrives in chunks of up to 1 MiB (the local
 * store reads 1 MiB at a time), and a chunk decoded whole was a string of up to a million characters,
 * which V8 allocates in its large-object space, in the old generation, with every piece and cell of
 * the parser cut from it. Measured with --trace-gc-nvp, each file-work thread promoted 64-70 MB to the
 * old generation per half of a 1M-row output and ran 18 full collections; decoding 64 KiB at a time,
 * 9 MB and 8, and the output took 12% less CPU. 64 KiB was still too much for text with any character
 * past U+00FF: V8 then stores two bytes a character, and up to 64 Ki characters made 128 KiB, a large
 * object again (the wide case: 310 MB promoted per thread, 52 full collections). 32 KiB of bytes is at
 * most 32 Ki characters, 64 KiB stored: 25 MB and 15 (bench/README.md, "Decoded texts").
 */
const DECODE_BYTES = 32 * 1024;

/** The most characters one text decodeText hands over has: one per byte at most. */
export const DECODED_TEXT_CHARS = DECODE_BYTES;

/** `chunk` in consecutive views of at most DECODE_BYTES (no copy). */
function* decodingSlices(chunk: Buffer): Generator<Buffer> {
  if (chunk.length <= DECODE_BYTES) {
    yield chunk;
    return;
  }
  for (let i = 0; i < chunk.length; i += DECODE_BYTES) yield chunk.subarray(i, i + DECODE_BYTES);
}

/**
 * Decodes a byte stream as text in `encoding`, chunk by chunk (characters split across
 * chunks are kept whole), in texts of at most DECODE_BYTES' worth. Bytes that are not valid in the
 * encoding stop the stream with an `encodingInvalid` problem instead of becoming replacement characters.
 * `fromMiddle`: the bytes start in the middle of a file, so a byte-order mark there is a
 * character of a cell (U+FEFF), kept as a read from the top keeps it, not taken away.
 */
export async function* decodeText(bytes: AsyncIterable<Buffer>, encoding: string, fromMiddle = false): AsyncGenerator<string> {
  let offset = 0;
  if (encoding === 'utf-8') {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: fromMiddle });
    try {
      for await (const chunk of bytes) {
        for (const slice of decodingSlices(chunk)) {
          const text = decoder.decode(slice, { stream: true });
          offset += slice.length;
          if (text) yield text;
        }
      }
      const tail = decoder.decode();
      if (tail) yield tail;
    } catch (err) {
      // TextDecoder's error (a TypeError from Node's realm, so matched by its code).
      if ((err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
        throw new SourceProblem(
          'encodingInvalid',
          `The file is not valid UTF-8 (near byte ${offset}). Save it as UTF-8, or in one encoding throughout.`,
        );
      throw err;
    }
    return;
  }
  const decoder = iconv.getDecoder(encoding, { stripBOM: !fromMiddle });
  // Legacy code pages cannot encode U+FFFD: its appearance means a byte the code page does not define.
  const strict = !encoding.startsWith('utf-16');
  for await (const chunk of bytes) {
    for (const slice of decodingSlices(chunk)) {
      const text = decoder.write(slice);
      if (strict && text.includes('\uFFFD')) {
        throw new SourceProblem(
          'encodingInvalid',
          `The file contains bytes that are not valid ${encoding} (near byte ${offset + Math.max(0, text.indexOf('\uFFFD'))}).`,
        );
      }
      offset += slice.length;
      if (text) yield text;
    }
  }
  const tail = decoder.end();
  if (tail) yield tail;
}
