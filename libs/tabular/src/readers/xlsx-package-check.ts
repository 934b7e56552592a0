import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { SourceProblem, type TableLimits } from './source-problem';

/** Parts smaller than this unpacked are never refused for their ratio (tiny XML compresses well). */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** An OOXML workbook has tens of parts; thousands means something else. */
const MAX_PARTS = 10_000;
/** A data descriptor after a part: signature + CRC + two 64-bit sizes at most. */
const MAX_DESCRIPTOR_BYTES = 24;
const DOCTYPE = /<!(DOCTYPE|ENTITY)/i;

type ArchiveLimits = Pick<TableLimits, 'maxUnpackedBytes' | 'maxCompressionRatio'>;

const damaged = () => new SourceProblem('unreadableFile', 'The workbook is damaged: it is not a readable ZIP package.');
const tooLarge = (detail: string) => new SourceProblem('archiveTooLarge', `The workbook unpacks to too much data: ${detail}`);

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (err, zip) =>
      err || !zip ? reject(damaged()) : resolve(zip),
    );
  });
}

function listParts(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const parts: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      if (parts.length >= MAX_PARTS) return reject(tooLarge(`more than ${MAX_PARTS} parts.`));
      parts.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(parts));
    zip.on('error', () => reject(damaged()));
    zip.readEntry();
  });
}

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
 * unzipper (exceljs uses one) reads local headers in file order, so a part hidden between
 * listed ones would be unpacked without ever being checked.
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

/** Unpacks one part, counting bytes against the budget and looking for a DTD across chunk boundaries. */
async function scanPart(zip: ZipFile, part: Entry, budget: { left: number }, maxUnpacked: number): Promise<void> {
  const stream = await call<NodeJS.ReadableStream>((cb) => zip.openReadStream(part, cb));
  let carry = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      budget.left -= chunk.length;
      if (budget.left < 0) throw tooLarge(`more than ${maxUnpacked} bytes.`);
      const text = carry + chunk.toString('latin1');
      if (DOCTYPE.test(text))
        throw new SourceProblem('xmlDoctype', `The workbook part ${part.fileName} declares a DTD or entities; such documents are refused.`);
      carry = text.slice(-8);
    }
  } catch (err) {
    (stream as unknown as { destroy(): void }).destroy();
    if (err instanceof SourceProblem) throw err;
    throw damaged(); // yauzl's size validation: a part inflating past its declared size
  }
}

/**
 * Zip-bomb and XML checks for an XLSX package stored at `path`, before exceljs sees it:
 * declared sizes and ratios, parts tiling the file, then every part unpacked once with a
 * byte budget (yauzl stops a part that inflates past its declared size) and no DTD.
 */
export async function checkXlsxPackage(path: string, limits: ArchiveLimits): Promise<void> {
  const zip = await openZip(path);
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
