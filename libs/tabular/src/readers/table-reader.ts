/** A table read as batches of rows; every cell is text (XLSX values are rendered to text). */
export type RowBatches = AsyncIterable<string[][]>;

export type SourceFormat = 'delimited' | 'xlsx';

export interface OpenedTable {
  format: SourceFormat;
  /** Delimiter used (detected or given); null for XLSX. */
  delimiter: string | null;
  encoding: string;
  batches: RowBatches;
}

/** Which reader a filename needs; null for extensions that are not tabular. */
export function tableFormatOf(filename: string): { format: SourceFormat; delimiter: string | null } | null {
  const ext = filename.toLowerCase().split('.').pop();
  switch (ext) {
    case 'csv':
    case 'txt':
      return { format: 'delimited', delimiter: null };
    case 'tsv':
      return { format: 'delimited', delimiter: '\t' };
    case 'xlsx':
      return { format: 'xlsx', delimiter: null };
    default:
      return null;
  }
}

export const BATCH_ROWS = 2000;
