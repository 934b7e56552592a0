import type { RowShape, StoredEvent, ValueFix } from '@app/contracts';

/** One line of a run's history as the console shows it: what happened, when, and the few facts worth a person's eye. */
export interface TimelineEntry {
  type: string;
  at: string;
  details: Record<string, string | number | boolean | null>;
}

/** The facts each event type contributes to its line (never blob keys, texts or payloads). */
const DETAILS: Record<string, readonly string[]> = {
  RunCreated: ['input_source', 'filename', 'dry_run'],
  SourceUploaded: ['size_bytes'],
  SourceParsed: ['total_rows', 'source_format', 'delimiter', 'encoding', 'sheet'],
  SheetChosen: ['sheet', 'total_rows'],
  EncodingChosen: ['encoding'],
  ReviewPrepared: ['mapping_origin'],
  MappingEdited: ['mapping_version'],
  ReviewApproved: ['rows_with_problems'],
  OutputProduced: ['rows_written', 'rows_with_problems', 'rows_excluded', 'output_format'],
  WebhookScheduled: ['event', 'url'],
  WebhookAttempted: ['event', 'attempt', 'outcome', 'status_code', 'error', 'duration_ms'],
  WebhookResendRequested: ['event'],
  FilesPurged: ['reason'],
};

const scalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A date pattern of letters, digits and separators only, not too long to read in a line. */
const PLAIN_DATE_PATTERN = /^[A-Za-z0-9 .,:/-]{1,40}$/;

/**
 * What a reviewer's fix was, in facts that are not the customer's data: the field, the kind of fix (a normaliser by its
 * name), the row of a cell edit or of a row left out or put back, and the pattern of a date rewrite. Never the values
 * it found or wrote.
 */
function fixDetails(data: Record<string, unknown>): TimelineEntry['details'] {
  const fix = (data.fix ?? {}) as Partial<ValueFix> & { normaliser?: unknown; row?: unknown; date_pattern?: unknown };
  const details: TimelineEntry['details'] = {};
  // A fix of a whole row (a row left out or put back) has no field: "".
  if (typeof data.field === 'string' && data.field !== '') details.field = data.field;
  const kind = fix.kind === 'normalise' ? fix.normaliser : fix.kind;
  if (typeof kind === 'string') details.fix = kind;
  if ((fix.kind === 'cell' || fix.kind === 'leave_out' || fix.kind === 'put_back') && typeof fix.row === 'number') details.row = fix.row;
  // A pattern is typed by the reviewer and may quote any text ('Uhr'): only one of pattern letters and marks is shown.
  if (fix.kind === 'normalise' && typeof fix.date_pattern === 'string' && PLAIN_DATE_PATTERN.test(fix.date_pattern))
    details.date_pattern = fix.date_pattern;
  return details;
}

/** How many rows of the file read did not line up with its first row (the counts only: RowShape's row numbers are the review's business). */
function rowShapeDetails(data: Record<string, unknown>): TimelineEntry['details'] {
  const shape = (data.row_shape ?? {}) as Partial<RowShape>;
  const details: TimelineEntry['details'] = {};
  // As the file was read then: a first row taken as the header names no column past its last value (the review's count).
  const longer = data.input_has_header === true && shape.past_header_values ? shape.past_header_values.longer_rows : shape.longer_rows;
  if (typeof longer === 'number' && longer > 0) details.longer_rows = longer;
  if (typeof shape.shorter_rows === 'number' && shape.shorter_rows > 0) details.shorter_rows = shape.shorter_rows;
  return details;
}

/** The events that read the file, each with the row counts of what it read. */
const READS_THE_FILE = new Set(['SourceParsed', 'SheetChosen', 'EncodingChosen']);

/** A run's events as its timeline, oldest first; progress ticks are left out (they say nothing a person needs). */
export function runTimeline(events: StoredEvent[]): TimelineEntry[] {
  // An undo names only its fix: the line says what that fix was.
  const fixes = new Map<string, TimelineEntry['details']>();
  return events
    .filter((e) => e.type !== 'IngestionProgressed' && e.type !== 'OutputProgressed')
    .map((e) => {
      const data = (e.data ?? {}) as Record<string, unknown>;
      const details: TimelineEntry['details'] = {};
      for (const key of DETAILS[e.type] ?? []) if (scalar(data[key])) details[key] = data[key];
      if (e.type === 'ValuesFixed') {
        Object.assign(details, fixDetails(data));
        if (typeof data.fix_id === 'string') fixes.set(data.fix_id, { ...details });
      }
      if (READS_THE_FILE.has(e.type)) Object.assign(details, rowShapeDetails(data));
      if (e.type === 'ValueFixUndone' && typeof data.fix_id === 'string') Object.assign(details, fixes.get(data.fix_id));
      if (e.type === 'RunFailed') {
        const error = data.error as { code?: unknown; message?: unknown } | undefined;
        if (typeof error?.code === 'string') details.code = error.code;
        if (typeof error?.message === 'string') details.message = error.message;
      }
      return { type: e.type, at: e.metadata.occurred_at, details };
    });
}
