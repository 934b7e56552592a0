import { filetypeinfo } from 'magic-bytes.js';
import { SourceProblem } from './source-problem';

/** How many leading bytes are looked at. */
export const SNIFF_BYTES = 4096;

const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');
const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];

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
  if (UTF16_BOMS.some((bom) => startsWith(head, bom))) return;
  const what = recognised(head);
  if (what) throw new SourceProblem('contentMismatch', `The file is named as text (CSV/TSV/TXT) but is ${what}.`);
  // NUL bytes do not occur in text (UTF-16 without a BOM aside, which is detected later).
  const nul = head.indexOf(0);
  if (nul !== -1 && !utf16WithoutBom(head))
    throw new SourceProblem('contentMismatch', 'The file is named as text (CSV/TSV/TXT) but contains binary data.');
}

/**
 * Nearly every other byte zero: mostly-ASCII UTF-16 text without a byte-order mark, and
 * which byte order (other UTF-16 needs its BOM to be recognised).
 */
export function utf16WithoutBom(head: Buffer): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(head.length, 512) & ~1;
  if (n < 16) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenZero++;
    if (head[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero / pairs > 0.9 && evenZero === 0) return 'utf-16le';
  if (evenZero / pairs > 0.9 && oddZero === 0) return 'utf-16be';
  return null;
}
