import { BATCH_ROWS } from './table-reader';

/**
 * Cells a batch holds at most: what a batch keeps alive grows with its cells, not its rows. 500
 * rows of the 6-column bench file; a 24-column file gets 125 rows a batch. With 500 rows of 24
 * cells the threads' batches outlived two collections and were promoted, and the wide bench's
 * output peaked at 241-257 MB (bench/README.md, "A wide file").
 */
export const BATCH_CELLS = 3_000;

/**
 * Characters a batch's cells hold at most (a row is never split, so one long row may pass it).
 * A row may be as long as MAX_ROW_CHARS (1 MiB by default): 500 such rows made a batch of 500 MB,
 * and a file of valid 1 MB rows ended its file-work thread at its heap's limit ("JS heap out of
 * memory") where the same rows in batches of two passed. The bench's rows are 90-270 characters,
 * so their batches (45-35 thousand characters) end by rows or cells as before.
 */
export const BATCH_CHARS = 1024 * 1024;

/** Gathers rows into batches of at most BATCH_ROWS rows, BATCH_CELLS cells and BATCH_CHARS characters (a row is never split). */
export class RowBatcher {
  private rows: string[][] = [];
  private cells = 0;
  private chars = 0;

  /** Adds a row; answers the batch when this row filled it (and a new one begins), else null. */
  add(row: string[]): string[][] | null {
    this.rows.push(row);
    this.cells += row.length;
    for (let i = 0; i < row.length; i++) this.chars += row[i].length;
    return this.rows.length >= BATCH_ROWS || this.cells >= BATCH_CELLS || this.chars >= BATCH_CHARS ? this.take() : null;
  }

  /** The rows gathered since the last batch was answered (possibly none); a new batch begins. */
  take(): string[][] {
    const batch = this.rows;
    this.rows = [];
    this.cells = 0;
    this.chars = 0;
    return batch;
  }
}
