import { SourceProblem, type TableLimits } from './source-problem';
import { tooLarge, type XlsxPackage } from './xlsx-package';
import type { StallWatch } from './xlsx-stall-watch';
import { unescapeXstring } from './xlsx-cell-text';
import { readXmlPart } from './xlsx-xml';

/**
 * The shared strings have to be held while the sheet streams (a cell refers to any of
 * them by index). They may use 1/16 of the unpacked-bytes limit (64 MiB by default):
 * a table bigger than that fails the read as too large instead of exhausting memory.
 */
const SHARED_STRINGS_SHARE = 16;
/** Bytes the budget counts for each string besides its text: its end offset. */
const BYTES_PER_ENTRY = 4;

/**
 * Bytes of each block the table's text is kept in. Under the service's `MALLOC_MMAP_THRESHOLD_` (64 KiB,
 * set by `npm start` and the image) a block gets pages of its own from malloc, so a table's blocks go back to
 * the system once it is dropped, and pages not yet written to are not resident. (glibc's own threshold rises
 * as big blocks are freed, and later blocks would then come from its arenas.)
 */
const BLOCK_BYTES = 1 << 20;
/** End offsets in each block of them (1 MiB), kept in blocks for the same reasons: a table of millions of short strings. */
const ENDS_PER_BLOCK = 1 << 18;

/**
 * The shared strings table, as UTF-8 in blocks of 1 MiB with an end offset per string: about the size
 * of the text itself, outside the JS heap, and counted exactly against the budget. (An array of JS
 * strings would cost 20+ bytes of header per string, and strings sliced out of the parser's chunks
 * can keep whole chunks alive.) Blocks, not one buffer grown by doubling: copying a grown buffer held
 * the old one too until it was collected, half the table again at its largest (a table of 63 MB
 * peaked at 64 + 32 MB, bench/README.md, "The sixty-first session"). A string may run on into the
 * next block. The end offsets are kept in blocks too: 4.9 million strings of 9 characters (the budget's worth) held
 * 16 + 32 MB of offsets at their last doubling.
 */
export class SharedStrings {
  private readonly blocks: Buffer[] = [];
  /** Bytes of text held: the offset, across the blocks, at which the next string starts. */
  private used = 0;
  private readonly endBlocks: Uint32Array[] = [];
  private count = 0;
  /** The longest string's characters: how much text one cell of the sheet may stand for (xmlSliceChars). */
  longest = 0;

  constructor(private readonly budget: number) {}

  /** Fails once `chars` more characters could not fit: UTF-8 takes at least a byte per UTF-16 unit. */
  checkRoom(chars: number): void {
    if (this.used + chars + (this.count + 1) * BYTES_PER_ENTRY > this.budget) throw this.overBudget();
  }

  add(text: string): void {
    const size = Buffer.byteLength(text);
    if (this.used + size + (this.count + 1) * BYTES_PER_ENTRY > this.budget) throw this.overBudget();
    const room = this.blocks.length * BLOCK_BYTES - this.used;
    if (size > room) this.spill(Buffer.from(text, 'utf8'), room);
    else if (size > 0) this.blocks[this.blocks.length - 1].write(text, BLOCK_BYTES - room, 'utf8'); // an empty first string has no block
    this.used += size;
    if (text.length > this.longest) this.longest = text.length;
    if (this.count % ENDS_PER_BLOCK === 0) this.endBlocks.push(new Uint32Array(ENDS_PER_BLOCK));
    this.endBlocks[this.endBlocks.length - 1][this.count % ENDS_PER_BLOCK] = this.used;
    this.count++;
  }

  /** Where string `index` ends, across the text's blocks. */
  private endOf(index: number): number {
    return this.endBlocks[Math.floor(index / ENDS_PER_BLOCK)][index % ENDS_PER_BLOCK];
  }

  /** Writes `bytes` into what is left of the last block (`room`), then into new blocks. */
  private spill(bytes: Buffer, room: number): void {
    let written = room > 0 ? bytes.copy(this.blocks[this.blocks.length - 1], BLOCK_BYTES - room) : 0;
    while (written < bytes.length) {
      const block = Buffer.allocUnsafe(BLOCK_BYTES);
      this.blocks.push(block);
      written += bytes.copy(block, 0, written);
    }
  }

  private overBudget() {
    return tooLarge(`its shared strings take more than ${this.budget} bytes.`);
  }

  /**
   * The string at `index`. An index the table does not have is a damaged workbook (Excel offers to
   * repair it): read as empty, as exceljs did, its cells vanished and a row of them was dropped as
   * blank, so fewer rows were delivered than the sheet has, without a word.
   */
  get(index: number): string {
    if (!(index >= 0 && index < this.count)) throw missingString(index);
    const start = index === 0 ? 0 : this.endOf(index - 1);
    const end = this.endOf(index);
    if (end === start) return '';
    const first = Math.floor(start / BLOCK_BYTES);
    const last = Math.floor((end - 1) / BLOCK_BYTES);
    if (first === last) return this.blocks[first].toString('utf8', start - first * BLOCK_BYTES, end - first * BLOCK_BYTES);
    // A string that runs on into later blocks is joined first: a character's bytes may be split between two.
    const pieces = [];
    for (let b = first; b <= last; b++)
      pieces.push(this.blocks[b].subarray(b === first ? start - b * BLOCK_BYTES : 0, b === last ? end - b * BLOCK_BYTES : BLOCK_BYTES));
    return Buffer.concat(pieces).toString('utf8');
  }
}

const missingString = (index: number) =>
  new SourceProblem(
    'unreadableFile',
    `The workbook is damaged: a cell refers to shared text number ${index}, which the workbook does not have. Open it in Excel, let it repair the file, and save it again.`,
  );

/**
 * Reads the shared strings part: each `<si>` is its text, or its rich-text runs joined;
 * phonetic guides (`<rPh>`, furigana over Japanese text) are not part of the value.
 */
export async function readSharedStrings(
  pkg: XlsxPackage,
  partName: string | null,
  limits: Pick<TableLimits, 'maxUnpackedBytes'>,
  watch: StallWatch,
  maxNodeChars: number,
): Promise<SharedStrings> {
  const strings = new SharedStrings(Math.min(Math.floor(limits.maxUnpackedBytes / SHARED_STRINGS_SHARE), 0xffff_ffff));
  if (!partName) return strings;
  let inItem = false;
  let inText = false;
  let phonetic = 0;
  let text = '';
  await readXmlPart(
    pkg,
    partName,
    {
      open(name) {
        if (name === 'si') {
          inItem = true;
          text = '';
        } else if (name === 'rPh') phonetic++;
        else if (name === 't' && inItem && phonetic === 0) inText = true;
      },
      text(piece) {
        if (!inText) return;
        text += piece;
        // One item of many small runs never trips the parser's node limit: bound it here.
        strings.checkRoom(text.length);
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'rPh') phonetic--;
        else if (name === 'si' && inItem) {
          strings.add(unescapeXstring(text));
          inItem = false;
        }
      },
    },
    watch,
    maxNodeChars,
  );
  return strings;
}
