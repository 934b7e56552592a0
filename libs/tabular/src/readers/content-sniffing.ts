import { filetypeinfo } from 'magic-bytes.js';
import { SourceProblem } from './source-problem';

/** How many leading bytes are looked at. */
export const SNIFF_BYTES = 4096;

const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');
const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];
/** UTF-32's byte-order marks (little-endian's starts as UTF-16LE's does: it is looked for first). */
const UTF32_BOMS = [Buffer.from([0xff, 0xfe, 0x00, 0x00]), Buffer.from([0x00, 0x00, 0xfe, 0xff])];

const startsWith = (head: Buffer, magic: Buffer) => head.length >= magic.length && head.subarray(0, magic.length).equals(magic);

/**
 * Formats recognised by magic-bytes.js whose signatures are long or distinctive enough
 * never to be the start of a text file (two-byte signatures such as BMP's "BM" are not:
 * a CSV may start with "BMI,…"). Executables and other binaries are caught by NUL bytes.
 */
const BINARY_TYPES = new Set(['zip', 'pdf', 'gz', '7z', 'ELF', 'png', 'jpg', 'gif', 'webp', 'exe']);

/** A name for what the bytes are, when they are a known binary or markup format. */
function recognised(head: Buffer): string | null {
  const hasUtf8Bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  const text = head
    .subarray(hasUtf8Bom ? 3 : 0, 512)
    .toString('latin1')
    .trimStart()
    .toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'an HTML page';
  if (text.startsWith('<?xml')) return 'an XML document';
  if (hasUtf8Bom) return null;
  // "MZ" alone is too short to trust; an executable also has NUL bytes, which the caller checks.
  const info = filetypeinfo(head).find((t) => BINARY_TYPES.has(t.typename) && (t.typename !== 'exe' || head.includes(0)));
  return info ? `a ${info.typename.toUpperCase()} file` : null;
}

/**
 * Refuses, before any parsing, a file whose bytes are not what its name says: a "CSV"
 * that is a ZIP, PDF, executable, image or HTML page; an "XLSX" that is not a ZIP
 * (OOXML) package. Legacy .xls (CFB) and encrypted workbooks are named as unsupported.
 */
export function checkContent(head: Buffer, format: 'delimited' | 'xlsx'): void {
  if (startsWith(head, CFB)) {
    if (head.includes(ENCRYPTED_PACKAGE) || format === 'xlsx') {
      throw new SourceProblem(
        'unsupportedFormat',
        head.includes(ENCRYPTED_PACKAGE)
          ? 'The workbook is password-protected (encrypted); encrypted workbooks are not supported. Save it without a password.'
          : 'The file is a legacy Excel workbook (.xls) or another OLE document; only .xlsx is supported. Save it as .xlsx.',
      );
    }
    throw new SourceProblem('contentMismatch', 'The file is named as text but is a legacy Office document (.xls/.doc).');
  }
  if (format === 'xlsx') {
    if (!startsWith(head, ZIP)) {
      const what = recognised(head);
      throw new SourceProblem('contentMismatch', `The file is named .xlsx but is not an Excel workbook${what ? ` (it is ${what})` : ''}.`);
    }
    return;
  }
  // Read as UTF-16 (its mark's first two bytes), UTF-32LE text gave every value NULs and a row more; the platform's
  // decoders have no UTF-32, and no one writes a table in it on purpose (PowerShell's -Encoding UTF32 does).
  if (UTF32_BOMS.some((bom) => startsWith(head, bom)))
    throw new SourceProblem('unsupportedFormat', 'The file is UTF-32 text, which is not supported. Save it as UTF-8.');
  if (UTF16_BOMS.some((bom) => startsWith(head, bom))) return;
  const what = recognised(head);
  if (what) throw new SourceProblem('contentMismatch', `The file is named as text (CSV/TSV/TXT) but is ${what}.`);
  // NUL bytes do not occur in text (UTF-16 without a BOM aside, which is detected later).
  const nul = head.indexOf(0);
  if (nul !== -1 && !utf16WithoutBom(head))
    throw new SourceProblem('contentMismatch', 'The file is named as text (CSV/TSV/TXT) but contains binary data.');
}

/**
 * Read as UTF-16, a character text does not have: a control character other than tab and line breaks, one
 * Unicode leaves unassigned, or one of private use. Random or compressed bytes read so give one in every six
 * or seven characters (and an unpaired surrogate sooner), 16-bit numbers under 256 one in four; text, at
 * most a stray one (a form feed, a private-use glyph, an emoji newer than this Node).
 */
const NOT_TEXT = /(?![\t\n\r])[\p{Cc}\p{Cn}\p{Co}]/gu;
const NOT_TEXT_SHARE_ALLOWED = 0.01;

/**
 * Whether `bytes` read as `encoding` are text with the ASCII of a table in them: they decode with no
 * unpaired surrogate and no NUL character (binary data is full of zero pairs), and either have line breaks
 * that are at least a quarter of their 0x0A bytes, or are a single line of nearly all Latin-1 characters.
 * The line breaks tell the byte order (read the other way, a line break is U+0A00, which Unicode leaves
 * unassigned). Their share of the 0x0A bytes tells UTF-16 from a file of one byte a character with a stray
 * zero byte beside a line break, whose other line breaks are lone 0x0A bytes: in UTF-16 a 0x0A byte that is
 * not a line break is half of a character such as 上 (U+4E0A), about one Chinese character in 200, so a
 * quarter leaves room for lines of several hundred characters.
 */
function readsAsUtf16Text(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be'): boolean {
  let text: string;
  try {
    // stream: a surrogate pair cut by the end of the sample is not taken for an unpaired one.
    text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes, { stream: true });
  } catch {
    return false;
  }
  if (text.includes('\0') || (text.match(NOT_TEXT)?.length ?? 0) > text.length * NOT_TEXT_SHARE_ALLOWED) return false;
  let lineBreaks = 0;
  let latin1 = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a) lineBreaks++;
    if (code <= 0xff) latin1++;
  }
  if (lineBreaks === 0) return latin1 > 0.9 * text.length;
  let lfBytes = 0;
  for (const byte of bytes) if (byte === 0x0a) lfBytes++;
  return lineBreaks * 4 >= lfBytes;
}

/**
 * UTF-16 text without a byte-order mark, in any script, and which byte order: the first bytes have a
 * zero byte (the high byte of an ASCII character: a delimiter, a digit, a line break 0A 00 or 00 0A;
 * text in any other encoding has none) and read as text in that order (readsAsUtf16Text).
 */
export function utf16WithoutBom(head: Buffer): 'utf-16le' | 'utf-16be' | null {
  const sample = head.subarray(0, Math.min(head.length, SNIFF_BYTES) & ~1);
  if (sample.length < 16 || !sample.includes(0)) return null;
  if (readsAsUtf16Text(sample, 'utf-16le')) return 'utf-16le';
  if (readsAsUtf16Text(sample, 'utf-16be')) return 'utf-16be';
  return null;
}
