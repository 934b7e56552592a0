import type { SourceReadLimits } from '@app/contracts';
import type { RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS, type TableLimits } from '@app/tabular';

/**
 * The limits a read of a file applied, as its event records them (SourceParsed.read_limits); undefined when they are
 * the defaults, so a service run as shipped records nothing more.
 */
export function recordedReadLimits(limits: TableLimits): SourceReadLimits | undefined {
  const recorded: SourceReadLimits = {
    max_row_chars: limits.maxRowChars,
    max_field_chars: limits.maxFieldChars,
    max_columns: limits.maxColumns,
    max_rows: limits.maxRows,
    max_unpacked_bytes: limits.maxUnpackedBytes,
    max_compression_ratio: limits.maxCompressionRatio,
  };
  return sameLimits(limits, DEFAULT_TABLE_LIMITS) ? undefined : recorded;
}

/**
 * The limits every later read of a run's rows applies: those its file was read under, not the service's configuration
 * now. A workbook's reader checks columns, values and rows again, and drops cells past the column limit; a text file's
 * reader finds its first row's line end (the file's line break) within the row limit. A file read under a raised
 * MAX_COLUMNS or MAX_ROW_CHARS is so read again under it, and one read before a limit was lowered still reads the rows
 * that were accepted.
 */
export function readLimitsOf(run: Pick<RunState, 'read_limits'>): TableLimits {
  const recorded = run.read_limits;
  if (!recorded) return DEFAULT_TABLE_LIMITS;
  return {
    maxRowChars: recorded.max_row_chars,
    maxFieldChars: recorded.max_field_chars,
    maxColumns: recorded.max_columns,
    maxRows: recorded.max_rows,
    maxUnpackedBytes: recorded.max_unpacked_bytes,
    maxCompressionRatio: recorded.max_compression_ratio,
  };
}

const sameLimits = (a: TableLimits, b: TableLimits): boolean =>
  a.maxRowChars === b.maxRowChars &&
  a.maxFieldChars === b.maxFieldChars &&
  a.maxColumns === b.maxColumns &&
  a.maxRows === b.maxRows &&
  a.maxUnpackedBytes === b.maxUnpackedBytes &&
  a.maxCompressionRatio === b.maxCompressionRatio;
