import type { RunState } from '@app/domain';

/** The settings the limit is made of (AppConfig's). */
export interface OutputLimitSettings {
  maxUploadBytes: number;
  maxOutputRatio: number;
  tableLimits: { maxUnpackedBytes: number; maxCompressionRatio: number };
}

/** A workbook part unpacks to at most this much whatever its compression (libs/tabular's package check). */
const RATIO_FREE_PART_BYTES = 1024 * 1024;

/**
 * How large a run's output may grow, in bytes: what its rows' frame takes (every field's name and
 * punctuation on every row, `null` for a field with no value), plus `maxOutputRatio` times its
 * source for every field that reads the same column, and never less than the largest upload.
 *
 * Why a limit at all: a reviewer's fixes can lengthen values (a find-and-replace grows a value up to
 * ten times, or to 10,000 characters), so a small file could otherwise write an output thousands of
 * times its size and fill the disk the event store and every other organization's files share.
 * Why this shape: an output is larger than its source for reasons that are no one's fault, and those
 * are counted, not guessed: JSON repeats each field's name on every row, a field left unmapped or a
 * cell left empty is still a member (`"name":null`), one column may be mapped to several fields.
 * What remains is how much a value itself may grow as it is written: escaping (a control character
 * becomes six), a date pattern written longer, "y" written `true`: the ratio (64 by default) leaves
 * room for that, fixes that lengthen values included up to it.
 */
export function outputByteLimit(run: RunState, sourceBytes: number | null, settings: OutputLimitSettings): number {
  const names = Object.keys(run.schema.fields);
  const rows = run.total_rows ?? 0;
  const frame =
    run.output_format === 'json'
      ? // `{"name":null,...},\n` per row: the name as JSON, its colon, comma and a null.
        names.reduce((sum, name) => sum + JSON.stringify(name).length + 6, 4)
      : // A comma per field and the line break, per row; the header row once (names quoted, quotes doubled).
        names.length + 2;
  const header = run.output_format === 'json' ? 2 : names.reduce((sum, name) => sum + 2 * name.length + 3, 2);
  const values = settings.maxOutputRatio * fieldsPerColumn(run) * readableBytes(run, sourceBytes ?? 0, settings);
  return Math.max(settings.maxUploadBytes, header + rows * frame + values);
}

/** How many fields the mapping reads from one column at most (at least 1): each writes the column's values again. */
function fieldsPerColumn(run: RunState): number {
  const counts = new Map<string, number>();
  for (const column of Object.values(run.mapping_rule ?? {})) if (column !== null) counts.set(column, (counts.get(column) ?? 0) + 1);
  return Math.max(1, ...counts.values());
}

/** The source's text as read: a workbook's stored size is its compressed size, so what its sheets may unpack to. */
function readableBytes(run: RunState, storedBytes: number, settings: OutputLimitSettings): number {
  if (run.source_format !== 'xlsx') return storedBytes;
  const { maxUnpackedBytes, maxCompressionRatio } = settings.tableLimits;
  return Math.min(maxUnpackedBytes, Math.max(RATIO_FREE_PART_BYTES, maxCompressionRatio * storedBytes));
}
