import type { Readable } from 'node:stream';
import { openDelimited } from './delimited-reader';
import type { TableLimits } from './source-problem';
import type { OpenedTable, SourceFormat } from './table-reader';
import type { MergedCellsFill } from './xlsx-merged-cells';
import { openXlsx, type XlsxOpenOptions } from './xlsx-reader';

export interface OpenOptions {
  /** The text encoding recorded when the file was first read (delimited files); detected when absent. */
  encoding?: string | null;
  limits?: TableLimits;
  /** The source already passed ingestion's checks (XLSX package checks are not repeated). */
  alreadyIngested?: boolean;
  /** XLSX: which worksheet (XlsxOpenOptions.sheet); null or absent: the first with rows. */
  sheet?: XlsxOpenOptions['sheet'] | null;
  /** A delimited file read from a row index entry, with the line break its index recorded. */
  resumeWithLinebreak?: string;
  /** XLSX: the merges over rows the file's first read found (OpenedTable.mergedCells), filled in below the header. */
  mergedCells?: MergedCellsFill;
}

/** Opens a stored source with the reader its format needs. */
export function openTable(
  input: Readable,
  format: SourceFormat,
  delimiter: string | null,
  options: OpenOptions = {},
): Promise<OpenedTable> {
  return format === 'xlsx'
    ? openXlsx(input, options.limits, undefined, {
        packageChecked: options.alreadyIngested,
        sheet: options.sheet ?? undefined,
        mergedCells: options.mergedCells,
      })
    : openDelimited(input, delimiter, options);
}
