import { isAscii, isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { utf16WithoutBom } from './content-sniffing';
import { isMacRoman } from './mac-roman';
import { SourceProblem } from './source-problem';
import { westernOrCentral } from './western-or-central';
import { greekOrHebrew, wordsOfAnotherScript } from './words-of-another-script';

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
 * this list within 80% of the best score wins over a rarer code page, and windows-1252, the commonest,
 * wins a close call with windows-1250.
 */
const PREFERRED = new Set(['windows-1252', 'windows-1250', 'windows-1256', 'windows-1251']);
const CLOSE_CALL = 0.8;

/**
 * Whether `sample`, the first bytes of a file, has no byte `codePage` leaves undefined. Decoded as a stream that goes on
 * (no end): a character of two bytes cut by the sample's end is held back, not read as U+FFFD. A file of Shift_JIS,
 * GBK, Big5 or EUC-KR whose 64 KiB sample ended inside a character was so ruled out of its own code page, and read as a
 * Latin or Cyrillic one, every row garbled, or refused, by where byte 65,536 fell. A file whose last character is cut
 * is still refused: its whole read names the byte.
 */
const readableAsStart = (sample: Buffer, codePage: string): boolean => !iconv.getDecoder(codePage).write(sample).includes('\uFFFD');

function guessLegacyEncoding(sample: Buffer): string | null {
  const readable = (codePage: string) => readableAsStart(sample, codePage);
  const candidates = chardet
    .analyse(sample)
    .map((c) => ({ name: ALIASES[c.name.toLowerCase()] ?? c.name.toLowerCase(), confidence: c.confidence }))
    .filter((c) => c.confidence > 0 && c.name !== 'utf-8' && iconv.encodingExists(c.name))
    // A code page under which the sample has undefined bytes cannot be the file's.
    .filter((c) => readable(c.name));
  // chardet has no Mac Roman: where it would say a Latin code page, or none, the letters in the words tell (mac-roman.ts).
  if (candidates.length === 0) return isMacRoman(sample) ? 'macintosh' : wordsOfAnotherScript(sample, readable);
  // A code page of a Latin script whose words past ASCII are those of another script is read in that script's.
  const pick = latinPick(sample, candidates);
  if (pick === 'iso-8859-7') return greekOrHebrew(sample, readable);
  if (!LATIN_CODE_PAGES.has(pick)) return pick;
  return isMacRoman(sample) ? 'macintosh' : (wordsOfAnotherScript(sample, readable) ?? pick);
}

/** The code pages of Latin scripts chardet's guess can come out as. */
const LATIN_CODE_PAGES = new Set(['windows-1250', 'windows-1252', 'windows-1254', 'windows-1257', 'windows-1258']);

/** chardet's best guess, Western and Central European and Turkish told apart by the letters. */
function latinPick(sample: Buffer, candidates: { name: string; confidence: number }[]): string {
  const best = candidates[0];
  const close = candidates.filter((c) => PREFERRED.has(c.name) && c.confidence >= best.confidence * CLOSE_CALL);
  // Between the two Latin ones only: Cyrillic and Arabic keep their rank.
  const preferred = close[0]?.name === 'windows-1250' ? (close.find((c) => c.name === 'windows-1252') ?? close[0]) : close[0];
  const chosen = (preferred ?? best).name;
  // Between Western and Central European the letters decide where they can (western-or-central.ts).
  const latin = chosen === 'windows-1252' || chosen === 'windows-1250' ? (westernOrCentral(sample) ?? chosen) : chosen;
  return latin === 'windows-1252' || latin === 'windows-1254' ? westernOrTurkish(sample) : latin;
}

/**
 * windows-1254 (Turkish) is windows-1252 with six letters changed: bytes D0 DD DE F0 FD FE are Ğ İ Ş ğ ı ş
 * in it and Ð Ý Þ ð ý þ (Icelandic) in windows-1252, and it leaves 8E and 9E (Ž ž) undefined. chardet's
 * scores do not tell the two apart: its Turkish n-grams beat its Western ones on a short list of Icelandic
 * names (14 to 7), which then read Þórður as "Şórğur", and tie with them on Turkish text. Between the two, the
 * letters decide (westernOrTurkish).
 */
const TURKISH_OR_ICELANDIC = new Set([0xd0, 0xdd, 0xde, 0xf0, 0xfd, 0xfe]);
/** ı İ (FD DD) as Turkish reads them, and ç Ç ü Ü, which Icelandic does not have. */
const TURKISH_EVIDENCE = new Set([0xfd, 0xdd, 0xe7, 0xc7, 0xfc, 0xdc]);
/**
 * Letters common to Turkish and Icelandic or rare in both: ş/þ Ş/Þ, ğ/ð Ğ/Ð (ğ is in many Turkish names:
 * Doğan, Erdoğan), ö Ö, â Â î Î û Û.
 */
const TELLS_NOTHING = new Set([0xfe, 0xde, 0xf0, 0xd0, 0xf6, 0xd6, 0xe2, 0xc2, 0xee, 0xce, 0xfb, 0xdb]);
/** In text of one language the evidence is about 4 to 1 or more either way; a file that mixes languages stays windows-1252. */
const CLEARLY_TURKISH = 2;

/**
 * The code page of a sample chardet gave windows-1252 or windows-1254: windows-1252 unless the letters
 * that only a Turkish reading makes common outnumber, more than twice, the letters that tell against it.
 * For Turkish: ı, among its commonest letters, and İ, every capital i (Icelandic ý and Ý are rare), and ç
 * and ü. Against: any letter past ASCII that Turkish does not have (á é í ó ú æ ø ß ä à ñ…), which
 * Icelandic writes often. A sample without any of the
 * six bytes reads the same either way: windows-1252, the name of Western text.
 */
function westernOrTurkish(sample: Buffer): 'windows-1252' | 'windows-1254' {
  // Ž or ž: not windows-1254.
  if (sample.includes(0x8e) || sample.includes(0x9e)) return 'windows-1252';
  let six = 0;
  let turkish = 0;
  let against = 0;
  for (let i = 0; i < sample.length; i++) {
    const byte = sample[i];
    // Bytes below C0 are ASCII, punctuation and symbols; D7 and F7 are × and ÷.
    if (byte < 0xc0 || byte === 0xd7 || byte === 0xf7) continue;
    if (TURKISH_OR_ICELANDIC.has(byte)) six++;
    if (TURKISH_EVIDENCE.has(byte)) turkish++;
    else if (!TELLS_NOTHING.has(byte)) against++;
  }
  return six > 0 && turkish > CLEARLY_TURKISH * against ? 'windows-1254' : 'windows-1252';
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
 * Whether a sample that is not valid UTF-8 is still UTF-8 at heart: well-formed multi-byte
 * characters more than ten times as many as broken sequences (ICU's UTF-8 recognizer draws its
 * line there too). Text in a legacy code page makes a well-formed sequence only by chance (an
 * accented capital before a symbol of 0x80-0xBF: "ß“", and Polish capitals such as "ÓŁ" of
 * SPÓŁKA, which a list of companies repeats), while most of its letters past ASCII break one; a
 * UTF-8 file with a stray byte is the other way round. Read as windows-1252, that file had every
 * one of its good accents garbled. A sample with fewer good characters stays with the code page.
 */
function isDamagedUtf8(sample: Buffer): boolean {
  const tally = new Utf8Tally();
  tally.add(sample);
  return tally.mostlyWellFormed();
}

/**
 * Characters past ASCII read as UTF-8 from bytes given in pieces: the well-formed ones (U+FEFF too, wherever it
 * is), and the broken sequences (U+FFFD each, not fatal), as TextDecoder reads the whole. Blocks of plain ASCII
 * are skipped without decoding: an ASCII byte ends any sequence, so the decoder is flushed there instead (a
 * sequence left open is broken). A file mostly ASCII is then tallied at about the speed it is read (decoding every
 * byte and looking at each character took six times as long as reading a 48 MB file); text dense past ASCII
 * costs what it did.
 */
export class Utf8Tally {
  // ignoreBOM: U+FEFF is a character to count here, not a mark to drop (after a flush, TextDecoder drops it again).
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private wellFormed = 0;
  private broken = 0;
  /** The decoder may hold the start of a sequence from the last block decoded. */
  private open = false;

  add(bytes: Buffer): void {
    for (let at = 0; at < bytes.length; at += ASCII_BLOCK) {
      const block = bytes.subarray(at, Math.min(at + ASCII_BLOCK, bytes.length));
      if (isAscii(block)) {
        if (this.open) this.count(this.decoder.decode());
        this.open = false;
        continue;
      }
      // stream: a sequence cut at the end of a block is read on with the next.
      this.count(this.decoder.decode(block, { stream: true }));
      this.open = true;
    }
  }

  /** More than ten well-formed characters to each broken sequence: UTF-8 at heart (ICU's line). */
  mostlyWellFormed(): boolean {
    return this.wellFormed > 10 * this.broken;
  }

  /** The characters past ASCII tallied so far (a sequence left open at the end of the last piece is not yet one). */
  counted(): { wellFormed: number; broken: number } {
    return { wellFormed: this.wellFormed, broken: this.broken };
  }

  private count(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0xfffd) this.broken++;
      // A surrogate pair (a four-byte character) counts once, by its high half.
      else if (code >= 0x80 && !(code >= 0xdc00 && code <= 0xdfff)) this.wellFormed++;
    }
  }
}

/** Blocks looked at whole (isAscii, native): one of plain ASCII is not decoded. */
const ASCII_BLOCK = 4096;

/**
 * The encoding of a text file from its first bytes: a byte-order mark if there is one
 * (UTF-8, UTF-16 LE/BE); UTF-16 without one when the bytes read so (utf16WithoutBom); UTF-8
 * when the sample is valid UTF-8 (ASCII included); a UTF-8 file with a few broken sequences
 * among many good ones is refused where its first broken byte is; else chardet's best guess
 * among the legacy code pages (e.g. windows-1252, windows-1250; westernOrCentral between those two, westernOrTurkish between 1252 and 1254).
 */
export function detectEncoding(sample: Buffer): string {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf-8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf-16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf-16be';
  const utf16 = utf16WithoutBom(sample);
  if (utf16) return utf16;
  if (isValidUtf8(sample)) return 'utf-8';
  if (isDamagedUtf8(sample)) throw invalidText('utf-8', firstBrokenByte(sample, 'utf-8', false));
  const name = guessLegacyEncoding(sample);
  if (!name) throw new SourceProblem('encodingInvalid', "The file's text encoding could not be recognised. Save it as UTF-8.");
  return name;
}

/** The UTF-8 byte-order mark. */
const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const startsWithUtf8Bom = (bytes: Buffer): boolean => UTF8_BOM.every((b, i) => bytes[i] === b);

/** A code page of one byte per character (what detectEncoding gives for legacy files of the review languages). */
export function isSingleByteCodePage(encoding: string): boolean {
  return /^(windows-125\d|iso-8859-\d{1,2}|koi8-[ru]|ibm866|macintosh)$/.test(encoding);
}

/**
 * A code page of one or two bytes a character for Japanese, Chinese or Korean, as detectEncoding names them. Each
 * reads ASCII as ASCII, and no byte under 0x80 of a file begins one of its two-byte characters, so a file's ASCII
 * head reads the same in it as in UTF-8.
 */
export function isEastAsianCodePage(encoding: string): boolean {
  return /^(shift_jis|euc-jp|gb18030|big5|euc-kr)$/.test(encoding);
}

/**
 * Bytes decoded into one string at most. Bytes arrive in chunks of up to 1 MiB (an upload's gathered
 * blocks; the local store read 1 MiB at a time until 2026-12-07), and a chunk decoded whole was a string of up to a million characters,
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

/** The Unicode encodings, decoded by the platform's TextDecoder in fatal mode. */
type UnicodeEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';
const isUnicode = (encoding: string): encoding is UnicodeEncoding =>
  encoding === 'utf-8' || encoding === 'utf-16le' || encoding === 'utf-16be';

function invalidText(encoding: UnicodeEncoding, at: number): SourceProblem {
  const name = encoding === 'utf-8' ? 'UTF-8' : 'UTF-16';
  return new SourceProblem(
    'encodingInvalid',
    `The file is not valid ${name} (at byte ${at}, counting from 0). Save it as ${name}, or in one encoding throughout.`,
  );
}

/** Bytes that text of `encoding` takes. */
const encodedLength = (text: string, encoding: UnicodeEncoding): number =>
  encoding === 'utf-8' ? Buffer.byteLength(text, 'utf8') : text.length * 2;

/**
 * Where the first broken sequence of `bytes` starts (which begin on a character's first byte):
 * the longest prefix the fatal decoder takes, found by halving, less the incomplete character it
 * ends in. `final`: the bytes end the file, so a character cut at the end is broken too.
 * Only run when decoding has already failed, so its dozen decodes cost nothing on the way.
 */
function firstBrokenByte(bytes: Buffer, encoding: UnicodeEncoding, final: boolean): number {
  const takes = (n: number): boolean => {
    try {
      new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, n), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let good = 0;
  let bad = bytes.length + 1;
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    if (takes(mid)) good = mid;
    else bad = mid;
  }
  if (good === bytes.length && !final) return good;
  const complete = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(0, good), { stream: true });
  return encodedLength(complete, encoding);
}

/**
 * Where a character may start in `region`: the last bytes read before the slice the decoder
 * failed on (the first `before` of it), then that slice. Past the continuation bytes (UTF-8) or
 * the low surrogate (UTF-16) of a character that began before the region: the decoder took those
 * already, so they can only end a character it took. In the slice itself, they are the break.
 */
function firstCharacterStart(region: Buffer, before: number, encoding: UnicodeEncoding): number {
  if (encoding === 'utf-8') {
    let i = 0;
    while (i < before && (region[i] & 0xc0) === 0x80) i++;
    return i;
  }
  const high = encoding === 'utf-16le' ? region[1] : region[0];
  return before >= 2 && high >= 0xdc && high <= 0xdf ? 2 : 0;
}

/** The last bytes read: a character the decoder holds back unfinished is among them (at most 3 bytes). */
const KEPT_BYTES = 4;

/**
 * How many bytes the UTF-8 character that `bytes` end in still lacks (0: they end where a character
 * ends). Continuation bytes are skipped back to the character's first byte, whose bits say how many
 * bytes it has. Only continuation bytes count as ended: the decoder refuses them in any case.
 */
function missingUtf8Bytes(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const byte = bytes[i];
    if ((byte & 0xc0) === 0x80) continue;
    if (byte < 0x80) return 0;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return Math.max(0, length - (bytes.length - i));
  }
  return 0;
}

/** Where the unfinished UTF-8 character `bytes` end in starts (their length when none is). */
function completeUtf8End(bytes: Buffer): number {
  if (missingUtf8Bytes(bytes) === 0) return bytes.length;
  let i = bytes.length - 1;
  while ((bytes[i] & 0xc0) === 0x80) i--;
  return i;
}

async function* decodeUnicode(bytes: AsyncIterable<Buffer>, encoding: UnicodeEncoding, fromMiddle: boolean): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: fromMiddle });
  /**
   * UTF-8 after the first slice (where a byte-order mark is taken away, at the top only) is decoded
   * by V8 (`toString`) once `isUtf8` has passed it, not through the decoder's streaming mode, which
   * Node runs through ICU: ICU's output buffer is four bytes a byte given, 128 KiB for a slice, and
   * under the service's MALLOC_MMAP_THRESHOLD_ each was a mapping of its own with its pages faulted in
   * afresh (decoding 24 MB of Turkish names: 179 ms against 43 ms without the setting; docs/decisions.md,
   * "UTF-8 decoded by V8 once it is checked"). The decoder still takes the first slice, the bytes of a
   * character cut between two slices (a few bytes, on its stack), and any slice that is not valid
   * UTF-8, so that it fails where it always did and `brokenAt` names the same byte.
   */
  const nativeUtf8 = encoding === 'utf-8';
  let decoderStarted = false;
  let offset = 0;
  let kept: Buffer = Buffer.alloc(0);
  const decodeUtf8Slice = (slice: Buffer): string => {
    let head = '';
    let from = 0;
    const missing = missingUtf8Bytes(kept);
    if (missing > 0) {
      // The decoder holds the first bytes of a character: it is given those that finish it (and fails on any that cannot).
      from = Math.min(missing, slice.length);
      head = decoder.decode(slice.subarray(0, from), { stream: true });
    }
    const rest = from === 0 ? slice : slice.subarray(from);
    if (isAscii(rest)) return head + rest.toString('latin1');
    const end = completeUtf8End(rest);
    const whole = end === rest.length ? rest : rest.subarray(0, end);
    if (!isUtf8(whole)) return head + decoder.decode(rest, { stream: true }); // fails, as it always did on this slice
    const text = head + whole.toString('utf8');
    // The first bytes of a character the next slice finishes: held by the decoder, as if it had read the whole slice.
    if (end < rest.length) decoder.decode(rest.subarray(end), { stream: true });
    return text;
  };
  /** The file offset of the first broken byte, the decoder having failed on `slice` (null: at the end). */
  const brokenAt = (slice: Buffer | null): number => {
    let region = Buffer.concat([kept, slice ?? Buffer.alloc(0)]);
    let before = kept.length;
    // UTF-16 characters start on even offsets.
    if (encoding !== 'utf-8' && (offset - before) % 2 === 1) {
      region = region.subarray(1);
      before--;
    }
    const regionStart = offset - before;
    const start = firstCharacterStart(region, before, encoding);
    return regionStart + start + firstBrokenByte(region.subarray(start), encoding, slice === null);
  };
  let failed: Buffer | null = null;
  try {
    for await (const chunk of bytes) {
      for (const slice of decodingSlices(chunk)) {
        failed = slice;
        const text = nativeUtf8 && decoderStarted ? decodeUtf8Slice(slice) : decoder.decode(slice, { stream: true });
        if (slice.length > 0) decoderStarted = true; // an empty first slice leaves the decoder at the top
        kept = slice.length >= KEPT_BYTES ? slice.subarray(-KEPT_BYTES) : Buffer.concat([kept, slice]).subarray(-KEPT_BYTES);
        offset += slice.length;
        if (text) yield text;
      }
    }
    failed = null;
    const tail = decoder.decode();
    if (tail) yield tail;
  } catch (err) {
    // TextDecoder's error (a TypeError from Node's realm, so matched by its code).
    if ((err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') throw invalidText(encoding, brokenAt(failed));
    throw err;
  }
}

/**
 * The problem of a byte the code page leaves undefined, `bad` characters into the text decoded
 * from the slice at `offset`. In a code page of one byte a character that is the byte's offset; in
 * one of several (Shift JIS, GB18030, Big5, which detection can also give) the characters before
 * it are encoded back to count their bytes, and a character cut by the slice's start makes that near.
 */
function undefinedByte(encoding: string, offset: number, text: string, bad: number): SourceProblem {
  const exact = isSingleByteCodePage(encoding);
  const at = offset + (exact ? bad : iconv.encode(text.slice(0, bad), encoding).length);
  return new SourceProblem(
    'encodingInvalid',
    `The file contains bytes that are not valid ${encoding} (${exact ? 'at' : 'near'} byte ${at}, counting from 0).`,
  );
}

/**
 * Decodes a byte stream as text in `encoding`, chunk by chunk (characters split across
 * chunks are kept whole), in texts of at most DECODE_BYTES' worth. Bytes that are not valid in the
 * encoding (a broken UTF-8 sequence, a UTF-16 surrogate without its pair or an odd last byte, a
 * byte a code page leaves undefined) stop the stream with an `encodingInvalid` problem that names
 * the byte, instead of becoming replacement characters.
 * `fromMiddle`: the bytes start in the middle of a file, so a byte-order mark there is a
 * character of a cell (U+FEFF), kept as a read from the top keeps it, not taken away.
 */
export async function* decodeText(bytes: AsyncIterable<Buffer>, encoding: string, fromMiddle = false): AsyncGenerator<string> {
  if (isUnicode(encoding)) {
    yield* decodeUnicode(bytes, encoding, fromMiddle);
    return;
  }
  const decoder = iconv.getDecoder(encoding, { stripBOM: !fromMiddle });
  let offset = 0;
  let top = !fromMiddle;
  for await (let chunk of bytes) {
    // A UTF-8 byte-order mark read in a code page chosen in review would be "ï»¿" before the first column's
    // name: it marks the file, it is no text in any code page (row-index.ts counts its bytes likewise).
    // (Single-byte code pages only: in a multi-byte one, such as GB18030, EF BB may begin a character. A first
    // chunk shorter than the mark is a file of at most two bytes, with no mark and text after it to spoil.)
    if (top && isSingleByteCodePage(encoding) && startsWithUtf8Bom(chunk)) {
      chunk = chunk.subarray(UTF8_BOM.length);
      offset = UTF8_BOM.length;
    }
    top = false;
    for (const slice of decodingSlices(chunk)) {
      const text = decoder.write(slice);
      // Legacy code pages cannot encode U+FFFD: its appearance means a byte the code page does not define.
      const bad = text.indexOf('\uFFFD');
      if (bad !== -1) throw undefinedByte(encoding, offset, text, bad);
      offset += slice.length;
      if (text) yield text;
    }
  }
  const tail = decoder.end();
  if (tail) yield tail;
}
