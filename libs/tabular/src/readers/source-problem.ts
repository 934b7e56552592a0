import { filledWidth } from './row-widths';

/**
 * Why a source file cannot be read as it is. Each kind is its own run error code
 * (libs/domain/src/errors/run-error-codes.ts), so callers can tell them apart.
 */
export type SourceProblemKind =
  | 'contentMismatch'
  | 'unreadableFile'
  | 'unsupportedFormat'
  | 'encodingInvalid'
  | 'unterminatedQuote'
  | 'malformedQuote'
  | 'mixedLineEnds'
  | 'rowTooLarge'
  | 'fieldTooLarge'
  | 'tooManyColumns'
  | 'tooManyRows'
  | 'archiveTooLarge'
  | 'xmlDoctype';

export class SourceProblem extends Error {
  constructor(
    readonly kind: SourceProblemKind,
    message: string,
  ) {
    super(message);
  }
}

/** Limits enforced while a file streams (docs/files.md). */
export interface TableLimits {
  /** Characters of one row, quoted newlines included; bounds any single field too. */
  maxRowChars: number;
  maxFieldChars: number;
  maxColumns: number;
  maxRows: number;
  /** Bytes an XLSX package may unpack to, all parts together. */
  maxUnpackedBytes: number;
  /** Unpacked size over packed size for any part bigger than 1 MiB unpacked (zip bombs reach 1000+). */
  maxCompressionRatio: number;
}

export const DEFAULT_TABLE_LIMITS: TableLimits = {
  maxRowChars: 1024 * 1024,
  maxFieldChars: 256 * 1024,
  maxColumns: 1000,
  maxRows: 10_000_000,
  maxUnpackedBytes: 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
};

/**
 * The most cells a delimited row may have, empty ones past its last value included: a sheet's 16,384 columns (XFD),
 * as a spreadsheet saves a used range wider than its data, or the column limit when that is higher. Past it a row
 * is refused as before empty cells were let through: each is a string in every read of the row (and the scan of
 * a row grows with its length), so a line of a million delimiters is no table.
 */
export const maxCellsOf = (limits: Pick<TableLimits, 'maxColumns'>): number => Math.max(limits.maxColumns, 16_384);

/**
 * Checks one parsed row against the limits; `rowNumber` is 1-based. The column limit counts the cells up to the
 * row's last value (empty cells past it, a used range wider than the data, hold nothing), up to maxCellsOf in all.
 */
export function checkRow(row: string[], rowNumber: number, limits: TableLimits): void {
  if (rowNumber > limits.maxRows) throw new SourceProblem('tooManyRows', `The file has more than ${limits.maxRows} rows.`);
  if (row.length > limits.maxColumns) {
    const columns = row.length > maxCellsOf(limits) ? row.length : filledWidth(row);
    if (columns > limits.maxColumns)
      throw new SourceProblem('tooManyColumns', `Row ${rowNumber} has ${columns} columns; at most ${limits.maxColumns} are allowed.`);
  }
  for (let i = 0; i < row.length; i++) {
    if (row[i].length > limits.maxFieldChars) {
      throw new SourceProblem(
        'fieldTooLarge',
        `Row ${rowNumber}, column ${i + 1} has ${row[i].length} characters; at most ${limits.maxFieldChars} are allowed.`,
      );
    }
  }
}
