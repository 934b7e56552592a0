import type { Entry, ZipFile } from 'yauzl';
import { SourceProblem, type TableLimits } from './source-problem';
import { listParts, notAZip as damaged, openPartStream, tooLarge, type XlsxPackage } from './xlsx-package';

/** Parts smaller than this unpacked are never refused for their ratio (tiny XML compresses well). */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** A data descriptor after a part: signature + CRC + two 64-bit sizes at most. */
const MAX_DESCRIPTOR_BYTES = 24;
const MARKUP_DECLARATION = Buffer.from('<!');

type ArchiveLimits = Pick<TableLimits, 'maxUnpackedBytes' | 'maxCompressionRatio'>;

function call<T>(fn: (cb: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));
}

/** Refuses the package on what its central directory declares, before anything is unpacked. */
export function checkDeclaredSizes(parts: Pick<Entry, 'fileName' | 'compressedSize' | 'uncompressedSize'>[], limits: ArchiveLimits): void {
  let total = 0;
  for (const part of parts) {
    total += part.uncompressedSize;
    if (total > limits.maxUnpackedBytes) throw tooLarge(`more than ${limits.maxUnpackedBytes} bytes.`);
    const ratio = part.uncompressedSize / Math.max(1, part.compressedSize);
    if (part.uncompressedSize > RATIO_FLOOR_BYTES && ratio > limits.maxCompressionRatio) {
      throw tooLarge(`part ${part.fileName} is compressed ${Math.round(ratio)}:1, at most ${limits.maxCompressionRatio}:1 is allowed.`);
    }
  }
}

/**
 * Every byte of the file must belong to a part the central directory lists: a streaming
 * unzipper reads local headers in file order, so a part hidden between listed ones would
 * be unpacked without ever being checked. (The reader itself now goes by the central
 * directory, but a package whose bytes disagree with its directory is damaged either way,
 * and other tools the customer uses may read it the streaming way.)
 */
async function checkPartsTileTheFile(zip: ZipFile, parts: Entry[], centralDirectoryOffset: number): Promise<void> {
  const sorted = [...parts].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  let expected = 0;
  for (const part of sorted) {
    const gap = part.relativeOffsetOfLocalHeader - expected;
    if (gap < 0 || gap > MAX_DESCRIPTOR_BYTES) throw damaged();
    const header = await call<{ fileDataStart: number }>((cb) =>
      (zip as unknown as { readLocalFileHeader(e: Entry, o: object, cb: unknown): void }).readLocalFileHeader(part, { minimal: true }, cb),
    );
    expected = header.fileDataStart + part.compressedSize;
  }
  const tail = centralDirectoryOffset - expected;
  if (tail < 0 || tail > MAX_DESCRIPTOR_BYTES) throw damaged();
}

/**
 * Whether the bytes hold `<!DOCTYPE` or `<!ENTITY`, in any case. Searched in the bytes
 * (ASCII in UTF-8 and Latin-1 alike): turning every part into text for a regular
 * expression took four times as long as unpacking it.
 */
function declaresDtd(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(MARKUP_DECLARATION); at >= 0; at = bytes.indexOf(MARKUP_DECLARATION, at + 2)) {
    const word = bytes.toString('latin1', at + 2, at + 9).toUpperCase();
    if (word.startsWith('DOCTYPE') || word.startsWith('ENTITY')) return true;
  }
  return false;
}

/** Unpacks one part, counting bytes against the budget and looking for a DTD, across chunk boundaries too. */
async function scanPart(zip: ZipFile, part: Entry, budget: { left: number }, maxUnpacked: number): Promise<void> {
  const stream = await openPartStream(zip, part);
  let tail = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      budget.left -= chunk.length;
      if (budget.left < 0) throw tooLarge(`more than ${maxUnpacked} bytes.`);
      // The seam: the previous chunk's last bytes with this one's first, for a declaration cut in two.
      if (declaresDtd(Buffer.concat([tail, chunk.subarray(0, 8)])) || declaresDtd(chunk))
        throw new SourceProblem('xmlDoctype', `The workbook part ${part.fileName} declares a DTD or entities; such documents are refused.`);
      tail = Buffer.from(chunk.subarray(-8));
    }
  } catch (err) {
    stream.destroy();
    if (err instanceof SourceProblem) throw err;
    throw damaged(); // a part inflating past its declared size, or not inflating at all
  }
}

/**
 * Zip-bomb and XML checks for an XLSX package, before any part is parsed: declared sizes
 * and ratios, parts tiling the file, then every part unpacked once with a byte budget
 * (yauzl stops a part that inflates past its declared size) and no DTD.
 */
export async function checkXlsxPackage(pkg: XlsxPackage, limits: ArchiveLimits): Promise<void> {
  const zip = await pkg.openZip();
  // yauzl starts reading entries at the central directory; read it before the first entry moves it.
  const centralDirectoryOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  try {
    const parts = await listParts(zip);
    if (parts.some((p) => (p.generalPurposeBitFlag & 0x1) !== 0)) {
      throw new SourceProblem(
        'unsupportedFormat',
        'Encrypted workbooks are not supported; save the file without a password and upload it again.',
      );
    }
    checkDeclaredSizes(parts, limits);
    await checkPartsTileTheFile(zip, parts, centralDirectoryOffset);
    const budget = { left: limits.maxUnpackedBytes };
    for (const part of parts) {
      if (!part.fileName.endsWith('/')) await scanPart(zip, part, budget, limits.maxUnpackedBytes);
    }
  } catch (err) {
    if (err instanceof SourceProblem) throw err;
    throw damaged();
  } finally {
    zip.close();
  }
}
