import { BATCH_ROWS } from './table-reader';

/**
 * Cells a batch holds at most: what a batch keeps alive grows with its cells, not its rows. 500
 * rows of the 6-column bench file; a 24-column file gets 125 rows a batch. With 500 rows of 24
 * cells the threads' batches outlived two collections and were promoted, and the wide bench's
 * output peaked at 241-257 MB (bench/README.md, "A wide file").
 */
export const BATCH_CELLS = 3_000;

/** Gathers rows into batches of at most BATCH_ROWS rows and BATCH_CELLS cells (a row is never split). */
export class RowBatcher {
  private rows: string[][] = [];
  private cells = 0;

  /** Adds a row; answers the batch when this row filled it (and a new one begins), else null. */
  add(row: string[]): string[][] | null {
    this.rows.push(row);
    this.cells += row.length;
    return this.rows.length >= BATCH_ROWS || this.cells >= BATCH_CELLS ? this.take() : null;
  }

  /** The rows gathered since the last batch was answered (possibly none); a new batch begins. */
  take(): string[][] {
    const batch = this.rows;
    this.rows = [];
    this.cells = 0;
    return batch;
  }
}
