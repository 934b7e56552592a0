import type { MappingRule, RowFix, RunEvent, WebhookEventName } from '@app/contracts';
import { CommandRefused } from '../errors/domain-error';
import { STAGES, runError } from '../errors/run-error-codes';
import { normalizeMapping } from '../mapping/validate-mapping';
import { headerNames } from '../mapping/detect-header';
import { mappingFromRemembered } from '../mapping/remembered-mapping';
import { suggestMapping } from '../mapping/suggest-mapping';
import { MAX_FIXES_BYTES, MAX_VALUE_FIXES, cellEditApplies, cellFixesKey, fixesKey, readValueFix } from '../fields/value-fixes';
import { ROW_FIX_FIELD, ROW_FIX_KINDS, inSpans, isLeftOut, readRowFix, rowDecisions, rowNumberingOf } from '../fields/rows-left-out';
import { isChoosableEncoding } from '../files/encoding-choice';
import type { CellRead, RunCommand } from './commands';
import { isWritingOutput, runPhase } from './run-phase';
import {
  filesPurgeDue,
  isOutputGone,
  isTerminal,
  isUploadOverdue,
  rowsAboveHeaderOf,
  rowsBeforeDataOf,
  hiddenDataRowSpansOf,
  runFileKeys,
  type RunFold,
  type RunState,
  type SheetColumns,
} from './run-state';

const refuse = (code: string, message: string): never => {
  throw new CommandRefused(code, message);
};

function requireRun(state: RunFold): RunState {
  return state ?? refuse('run_not_found', 'The run does not exist.');
}

/** An open review: active and before its deadline. Approving, canceling and editing need one. */
function requireOpenReview(run: RunState, at: string): void {
  switch (runPhase(run, new Date(at))) {
    case 'in_review':
      return;
    case 'failed':
      return refuse('run_failed', 'The run has failed; its review is closed.');
    case 'producing_output':
    case 'done':
      return refuse('review_already_approved', 'The review was already approved.');
    case 'canceled':
      return refuse('review_canceled', 'The review was canceled and is read-only.');
    case 'expired':
      return refuse('review_expired', 'The review has expired.');
    default:
      return refuse('review_not_ready', 'The review is not ready yet.');
  }
}

/** A save made on an older mapping than the current one would silently undo someone's edit. */
function requireCurrentMapping(run: RunState, expected: number | undefined): void {
  if (expected !== undefined && expected !== run.mapping_version)
    refuse('mapping_conflict', 'The mapping was changed by another reviewer since this page loaded it; your change was not saved.');
}

/** Characters of a value quoted in a refusal, at most: a long cell is not echoed whole. */
const MAX_VALUE_SAID = 100;
const quotedValue = (v: string): string => JSON.stringify(v.length > MAX_VALUE_SAID ? `${v.slice(0, MAX_VALUE_SAID)}…` : v);

/**
 * A cell edit is recorded only while its cell reads what the reviewer saw (`before`), as
 * `cell_read` found it, and only on the run that read was made on: an edit made on stale rows
 * would otherwise be answered as saved and never apply (compileFieldFixes leaves it unused).
 * `before` may be the value as the fixes see it or as the review shows it (`150` for a JSON
 * number read as `150.0`); the fix is recorded with the former, the one the fixes compare.
 */
function cellAsSeen<F extends { row: number; before: string }>(run: RunState, field: string, fix: F, cell: CellRead): F {
  // Fixes of other cells made meanwhile (a reviewer saving two cells at once) leave this one as it was read.
  if (cell.mapping_version !== run.mapping_version || cell.fixes_key !== cellFixesKey(run.value_fixes ?? [], field, fix.row))
    refuse(
      'fixes_conflict',
      'The mapping or the fixes were changed by another reviewer while this fix was checked; nothing was fixed. Load the rows again and fix the value there.',
    );
  if (cellEditApplies(cell.value, fix.before)) return fix;
  if (fix.before === cell.shown) return { ...fix, before: cell.value };
  return refuse(
    'fixes_conflict',
    `Row ${fix.row} of "${field}" reads ${quotedValue(cell.shown)}, not ${quotedValue(fix.before)} (the fix's before); ` +
      'nothing was fixed. Load the rows again and fix the value as it reads now.',
  );
}

/**
 * A reviewer's fix of whole rows: leave one out or put it back, or every row the sheet hides, under the rows' numbering
 * now (rowNumberingOf). Each is a fix like any other (the undo, the fixes' key and the approval's check of it cover it);
 * one that changes nothing (a row left out already, or not left out) records nothing. `expected_mapping_version` is the
 * page's: a header row or sheet chosen since it loaded numbers the rows otherwise, and the row it names may be another.
 */
function fixRow(run: RunState, command: Extract<RunCommand, { type: 'FixValues' }>): RunEvent[] {
  const o = (command.fix && typeof command.fix === 'object' ? command.fix : {}) as Record<string, unknown>;
  if (!ROW_FIX_KINDS.includes(o.kind as string))
    refuse(
      'invalid_fix',
      'A fix without a field is of whole rows: kind must be "leave_out" or "put_back" (with a row), or "leave_out_hidden" or "put_back_hidden".',
    );
  const ofHidden = o.kind === 'leave_out_hidden' || o.kind === 'put_back_hidden';
  const read = ofHidden ? null : readRowFix(o, run.total_rows);
  if (read && 'problems' in read) return refuse('invalid_fix', read.problems.join(' '));
  requireCurrentMapping(run, command.expected_mapping_version);
  const numbering = rowNumberingOf(run);
  const decisions = rowDecisions(run);
  let fix: RowFix;
  if (read) {
    const { kind, row } = read.fix;
    if (isLeftOut(decisions, row) === (kind === 'leave_out')) return [];
    fix = { kind, row, numbering };
  } else {
    const kind = o.kind as 'leave_out_hidden' | 'put_back_hidden';
    const hidden = hiddenDataRowSpansOf(run);
    if (hidden === null)
      return refuse(
        'invalid_fix',
        'The sheet hides its rows in more than 10,000 places, so they are not all known: leave them out one by one.',
      );
    if (hidden.length === 0) return refuse('invalid_fix', 'The sheet hides no rows of data.');
    const ownOfHidden = [...decisions.own.keys()].some((row) => inSpans(hidden, row));
    if (decisions.hiddenLeftOut === (kind === 'leave_out_hidden') && !ownOfHidden) return [];
    fix = { kind, numbering };
  }
  if ((run.value_fixes ?? []).length >= MAX_VALUE_FIXES)
    refuse('too_many_fixes', `A run keeps at most ${MAX_VALUE_FIXES} fixes; undo some, or fix many values at once with find and replace.`);
  return [
    {
      type: 'ValuesFixed',
      data: { fix_id: command.fix_id, field: ROW_FIX_FIELD, fix, fixed_by: 'review_link', fixed_at: command.at },
    },
  ];
}

function requireMapping(run: RunState, mapping: unknown) {
  const { mapping: normalized, problems } = normalizeMapping(mapping, Object.keys(run.schema.fields), run.source_headers);
  if (problems.length > 0) refuse('invalid_mapping', problems.map((p) => p.message).join(' '));
  return normalized;
}

/** A choice of the header row: whether there is one, and the rows above it left out (a title; none without a header). */
interface HeaderRowChoice {
  input_has_header: boolean;
  /** The header's row (or the first data row without one), after the rows left out. */
  first_row: string[];
  rows_above_header?: string[];
}

/** The rows above the header a choice leaves out: none when every row is data. */
const aboveHeaderIn = (choice: HeaderRowChoice): string[] => (choice.input_has_header ? (choice.rows_above_header ?? []) : []);

const isHeaderRowInForce = (run: RunState, choice: HeaderRowChoice): boolean =>
  choice.input_has_header === run.input_has_header && aboveHeaderIn(choice).length === rowsAboveHeaderOf(run);

/** The headers and row count that follow from taking a row as the header (after the rows above it), or none. */
function headerChoice(run: RunState, choice: HeaderRowChoice) {
  // The width stays the file's: headers are padded to it either way.
  const headers = headerNames(choice.first_row, choice.input_has_header, run.source_headers.length);
  const above = aboveHeaderIn(choice);
  // The rows every read skips before the data, as read now and under the choice: those above the header, and the header.
  const skippedNow = rowsBeforeDataOf(run);
  const skipped = above.length + (choice.input_has_header ? 1 : 0);
  const total = (run.total_rows ?? 0) + skippedNow - skipped;
  return {
    input_has_header: choice.input_has_header,
    source_headers: headers,
    total_rows: Math.max(0, total),
    ...(above.length > 0 ? { rows_above_header: above } : {}),
  };
}

/**
 * Whether the run's review may say whether its first row holds the column names: an open review of
 * an uploaded table. Checked before the first row is read (the gateway: a run with no file yet has
 * none to read) and again when the choice is recorded.
 */
export function requireHeaderChoice(run: RunState, at: string): void {
  requireOpenReview(run, at);
  if (run.rows_origin !== 'file' || run.source_format === null)
    refuse('header_not_applicable', 'Only the rows of an uploaded table have a header row to choose.');
}

/**
 * Whether the run's review may switch to the worksheet `sheet`: an open review of an
 * uploaded workbook that has a sheet of that name with data. Checked before the sheet is
 * read (the gateway) and again when the choice is recorded.
 */
export function requireSheetChoice(run: RunState, sheet: string, at: string): void {
  requireOpenReview(run, at);
  const sheets = run.sheets ?? [];
  if (run.rows_origin !== 'file' || run.source_format !== 'xlsx' || sheets.length === 0)
    refuse('sheet_not_applicable', 'Only an uploaded workbook has sheets to choose from.');
  const found = sheets.find((s) => s.name === sheet);
  if (!found)
    refuse('unknown_sheet', `The workbook has no sheet named "${sheet}"; its sheets are ${sheets.map((s) => `"${s.name}"`).join(', ')}.`);
  if (!found!.has_data) refuse('sheet_empty', `The sheet "${sheet}" has no data to import.`);
}

/**
 * Whether the run's review may read its uploaded text file in `encoding`: an open review of a
 * delimited file read in an encoding of CHOOSABLE_ENCODINGS (one whose rows start where they start
 * in every other of them). Checked before the file is read again (the gateway) and when the choice is recorded.
 */
export function requireEncodingChoice(run: RunState, encoding: string, at: string): void {
  requireOpenReview(run, at);
  if (run.rows_origin !== 'file' || run.source_format !== 'delimited' || !isChoosableEncoding(run.encoding))
    refuse(
      'encoding_not_applicable',
      run.rows_origin === 'file' && run.source_format === 'delimited'
        ? `A file read as ${run.encoding ?? 'an unknown encoding'} cannot be read in another encoding.`
        : 'Only an uploaded text file (CSV, TSV, TXT) has a text encoding to choose.',
    );
  if (!isChoosableEncoding(encoding)) refuse('unknown_encoding', `"${encoding}" is not an encoding the review offers.`);
}

/**
 * The mapping kept for the same file read in another encoding: the columns are the same ones, in
 * the same places, though a name may read otherwise ("StraÃŸe" becomes "Straße"), so each field
 * keeps the column in its place.
 */
function mappingByPlace(mapping: MappingRule | null, before: string[], after: string[]): MappingRule {
  return Object.fromEntries(
    Object.entries(mapping ?? {}).map(([field, column]) => {
      const place = column === null ? -1 : before.indexOf(column);
      return [field, place >= 0 && place < after.length ? after[place] : null];
    }),
  );
}

/** The mapping kept for another sheet: each field keeps its column where the new headers have it, and is unmapped otherwise. */
function mappingForHeaders(mapping: MappingRule | null, headers: string[]): MappingRule {
  const present = new Set(headers);
  return Object.fromEntries(
    Object.entries(mapping ?? {}).map(([field, column]) => [field, column !== null && present.has(column) ? column : null]),
  );
}

/**
 * The mapping once the first row is (or is no longer) the header: the columns are the same, only their names
 * change, so each field keeps the column in its place ("E-mail", the first, becomes column_1 and back). Fields
 * left unmapped then take what the new names suggest, where that column is free (names read from the row may
 * say more than column_N did).
 */
function mappingAfterHeaderChoice(run: RunState, headers: string[]): MappingRule {
  const before = run.source_headers ?? [];
  const kept: MappingRule = Object.fromEntries(
    Object.entries(run.mapping_rule ?? {}).map(([field, column]) => {
      const at = column === null ? -1 : before.indexOf(column);
      return [field, at >= 0 && at < headers.length ? headers[at] : null];
    }),
  );
  return suggestedWhereFree(run, kept, headers, () => true);
}

/**
 * The mapping with the fields `open` names that have no column given what these headers suggest, where that column
 * is free: a column already feeding a field is not given to a second one.
 */
function suggestedWhereFree(run: RunState, mapping: MappingRule, headers: string[], open: (field: string) => boolean): MappingRule {
  const out: MappingRule = { ...mapping };
  const taken = new Set(Object.values(out).filter((column) => column !== null));
  for (const [field, column] of Object.entries(suggestMapping(run.schema.fields, headers))) {
    if (!open(field) || (out[field] ?? null) !== null || column === null || taken.has(column)) continue;
    out[field] = column;
    taken.add(column);
  }
  return out;
}

/**
 * A sheet's mapping as the reviewer left it, on the sheet as read now. The sheet may be read under another header
 * choice than then (its first row taken for data then, column_1; its header row now, "E-mail"): the columns are the
 * same, only their names differ, so each field gets back the column in its place, as a header choice keeps it
 * (mappingAfterHeaderChoice). A field whose place this read does not have is left out, to be placed as on a sheet
 * never worked on; one left unmapped stays so.
 */
function restoredOnSheet(before: SheetColumns, headers: string[]): MappingRule {
  const restored: MappingRule = {};
  for (const [field, place] of Object.entries(before)) {
    if (place === null) restored[field] = null;
    else if (place < headers.length) restored[field] = headers[place];
  }
  return restored;
}

/**
 * The mapping on another worksheet: each field keeps its column where the sheet has one, and a field without one
 * takes what the sheet's headers suggest (a free column); a sheet the reviewer worked on before gets back its
 * fields' columns as they were then, unmapped ones too (not those carried or suggested from here), where this read
 * of the sheet still has them.
 */
function mappingOnSheet(run: RunState, sheet: string, headers: string[]): MappingRule {
  const carried = mappingForHeaders(run.mapping_rule, headers);
  const before = run.sheet_columns?.[sheet];
  if (!before) {
    // Suggested for a field that loses its column here, or for every field when nothing was mapped (a review opened on
    // a sheet whose names matched nothing): a field the reviewer left without a column stays so.
    const rule = run.mapping_rule ?? {};
    const nothingMapped = Object.values(rule).every((column) => column === null);
    const lost = (field: string) => !Object.hasOwn(rule, field) || rule[field] !== null;
    return suggestedWhereFree(run, carried, headers, (field) => nothingMapped || lost(field));
  }
  // Its fields as they were there, those left unmapped too; a field it did not have yet takes the carried column if free.
  const restored = restoredOnSheet(before, headers);
  const taken = new Set(Object.values(restored).filter((column) => column !== null));
  const added: MappingRule = Object.fromEntries(
    Object.entries(carried)
      .filter(([field]) => !(field in restored))
      .map(([field, column]) => [field, column !== null && taken.has(column) ? null : column]),
  );
  return suggestedWhereFree(run, { ...added, ...restored }, headers, (field) => !(field in restored));
}

/** Remembered picklist value mappings must still fit the run's schema (each is checked as a reviewer's fix would be). */
function requirePicklists(run: RunState, picklists: Record<string, Record<string, string>>) {
  for (const [field, values] of Object.entries(picklists)) {
    const read = readValueFix({ kind: 'picklist', values }, run.total_rows, run.schema.fields[field]);
    if ('problems' in read) refuse('invalid_fix', `${field}: ${read.problems.join(' ')}`);
  }
  return picklists;
}

/**
 * The run's decider: given the current state and a command, the events that record
 * its outcome, or a CommandRefused. Pure and deterministic.
 */
export function decide(command: RunCommand, state: RunFold): RunEvent[] {
  if (command.type === 'CreateRun') {
    if (state) refuse('run_exists', 'The run already exists.');
    return [{ type: 'RunCreated', data: command.data }];
  }
  const run = requireRun(state);
  switch (command.type) {
    case 'CompleteUpload':
      if (run.input_source === 'raw') refuse('upload_not_expected', 'A raw-content run takes no upload.');
      if (run.status === 'failed') refuse('run_failed', 'The run has failed.');
      if (run.source_uploaded) refuse('upload_already_completed', 'The source file was already uploaded.');
      return [{ type: 'SourceUploaded', data: { size_bytes: command.size_bytes, uploaded_at: command.at } }];

    case 'StartExtraction':
      if (run.input_source !== 'raw') refuse('extraction_not_expected', 'Only raw-text runs start extraction without an upload.');
      if (run.status !== 'queued') refuse('extraction_already_started', 'The extraction has already started.');
      return [{ type: 'ExtractionStarted', data: { started_at: command.at } }];

    case 'RecordIngestionProgress':
      if (runPhase(run) !== 'ingesting' || run.status !== 'processing')
        refuse('ingestion_not_running', 'The source is not being ingested.');
      return [{ type: 'IngestionProgressed', data: { processed_rows: command.processed_rows } }];

    case 'RecordParse':
      if (runPhase(run) === 'preparing_review') refuse('source_already_parsed', 'The source was already parsed.');
      if (runPhase(run) !== 'ingesting' || run.status !== 'processing')
        refuse('ingestion_not_running', 'The source is not being ingested.');
      return [{ type: 'SourceParsed', data: command.parse }];

    case 'PrepareReview': {
      if (runPhase(run) !== 'preparing_review')
        refuse('review_not_preparable', 'The review can be prepared only after the source was parsed.');
      const header = command.header && !isHeaderRowInForce(run, command.header) ? headerChoice(run, command.header) : null;
      // The mapping names the headers the review opens with (after a remembered header choice).
      const headed: RunState = header ? { ...run, source_headers: header.source_headers } : run;
      return [
        {
          type: 'ReviewPrepared',
          data: {
            mapping_rule: requireMapping(headed, command.mapping_rule),
            mapping_origin: command.mapping_origin ?? 'heuristic',
            ...(command.picklists && Object.keys(command.picklists).length ? { picklists: requirePicklists(run, command.picklists) } : {}),
            ...(header ? { header } : {}),
            review_expires_at: command.review_expires_at,
            prepared_at: command.at,
            ...(command.notices?.length ? { notices: command.notices } : {}),
          },
        },
      ];
    }

    case 'EditMapping':
      requireOpenReview(run, command.at);
      requireCurrentMapping(run, command.expected_mapping_version);
      return [{ type: 'MappingEdited', data: { mapping_rule: requireMapping(run, command.mapping_rule), edited_at: command.at } }];

    case 'FixValues': {
      requireOpenReview(run, command.at);
      if (command.field === ROW_FIX_FIELD) return fixRow(run, command);
      if (!Object.hasOwn(run.schema.fields, command.field)) refuse('invalid_fix', `The schema has no field "${command.field}".`);
      if ((run.value_fixes ?? []).length >= MAX_VALUE_FIXES)
        refuse(
          'too_many_fixes',
          `A run keeps at most ${MAX_VALUE_FIXES} fixes; undo some, or fix many values at once with find and replace.`,
        );
      const read = readValueFix(command.fix, run.total_rows, run.schema.fields[command.field]);
      if ('problems' in read) return refuse('invalid_fix', read.problems.join(' '));
      const fix = read.fix.kind === 'cell' && command.cell_read ? cellAsSeen(run, command.field, read.fix, command.cell_read) : read.fix;
      if (JSON.stringify([...(run.value_fixes ?? []), fix]).length > MAX_FIXES_BYTES)
        refuse('too_many_fixes', 'The fixes in force are too large to keep; undo some, or fix many values at once with find and replace.');
      return [
        {
          type: 'ValuesFixed',
          data: { fix_id: command.fix_id, field: command.field, fix, fixed_by: 'review_link', fixed_at: command.at },
        },
      ];
    }

    case 'ChooseHeaderRow': {
      requireHeaderChoice(run, command.at);
      if (isHeaderRowInForce(run, command)) return [];
      // The first row was read from the sheet the read model showed: another tab may have chosen another since.
      if (command.sheet !== undefined && command.sheet !== (run.sheet ?? null))
        refuse('mapping_conflict', 'Another sheet was chosen since this page loaded; reload the review and choose again.');
      // Likewise the encoding: the first row's names were decoded in the one read then.
      if (command.encoding !== undefined && command.encoding !== run.encoding)
        refuse('mapping_conflict', 'Another encoding was chosen since this page loaded; reload the review and choose again.');
      const chosen = headerChoice(run, command);
      return [
        {
          type: 'HeaderRowChosen',
          data: {
            ...chosen,
            // Columns approved before for these very names: as approved then, not each field's column by place.
            mapping_rule: command.remembered_mapping
              ? mappingFromRemembered(run.schema.fields, command.remembered_mapping, chosen.source_headers)
              : mappingAfterHeaderChoice(run, chosen.source_headers),
            mapping_origin: command.remembered_mapping ? 'remembered' : 'suggested',
            chosen_at: command.at,
          },
        },
      ];
    }

    case 'ChooseSheet': {
      requireSheetChoice(run, command.sheet, command.at);
      if (command.sheet === run.sheet) return [];
      const {
        source_headers,
        input_has_header,
        total_rows,
        row_shape,
        rows_above_header,
        merged_cells,
        hidden_rows,
        hidden_rows_total,
        hidden_row_spans,
        read_limits,
      } = command.read;
      const cut = hidden_rows_total !== undefined && hidden_rows_total > (hidden_rows?.length ?? 0);
      return [
        {
          type: 'SheetChosen',
          data: {
            sheet: command.sheet,
            source_headers,
            input_has_header,
            total_rows,
            mapping_rule: mappingOnSheet(run, command.sheet, source_headers),
            chosen_at: command.at,
            ...(row_shape ? { row_shape } : {}),
            ...(rows_above_header?.length ? { rows_above_header } : {}),
            ...(merged_cells?.length ? { merged_cells } : {}),
            ...(hidden_rows?.length ? { hidden_rows } : {}),
            ...(cut ? { hidden_rows_total, ...(hidden_row_spans ? { hidden_row_spans } : {}) } : {}),
            ...(read_limits ? { read_limits } : {}),
          },
        },
      ];
    }

    case 'ChooseEncoding': {
      requireEncodingChoice(run, command.encoding, command.at);
      if (command.encoding === run.encoding) return [];
      const { source_headers, input_has_header, total_rows, row_shape, rows_above_header, rows_above_header_found, read_limits } =
        command.read;
      // The file was read with the header row (and the rows above it) as it was then: another tab may have answered otherwise since.
      if (input_has_header !== run.input_has_header || (rows_above_header?.length ?? 0) !== rowsAboveHeaderOf(run))
        refuse('mapping_conflict', 'The header row was chosen again since the file was read; reload the review and choose again.');
      return [
        {
          type: 'EncodingChosen',
          data: {
            encoding: command.encoding,
            source_headers,
            input_has_header,
            total_rows,
            mapping_rule: mappingByPlace(run.mapping_rule, run.source_headers, source_headers),
            chosen_at: command.at,
            ...(row_shape ? { row_shape } : {}),
            ...(rows_above_header?.length ? { rows_above_header } : {}),
            ...(!rows_above_header?.length && rows_above_header_found?.length ? { rows_above_header_found } : {}),
            ...(read_limits ? { read_limits } : {}),
          },
        },
      ];
    }

    case 'UndoValueFix': {
      requireOpenReview(run, command.at);
      if (command.expected_fixes !== undefined && command.expected_fixes !== fixesKey(run.value_fixes ?? []))
        refuse('fixes_conflict', 'The fixes were changed by another reviewer since this page loaded them; nothing was undone.');
      const latest = (run.value_fixes ?? []).at(-1);
      if (!latest) return refuse('nothing_to_undo', 'There is no fix to undo.');
      return [{ type: 'ValueFixUndone', data: { fix_id: latest.fix_id, undone_at: command.at } }];
    }

    case 'ApproveReview':
      requireOpenReview(run, command.at);
      requireCurrentMapping(run, command.expected_mapping_version);
      if (command.expected_fixes !== undefined && command.expected_fixes !== fixesKey(run.value_fixes ?? []))
        refuse('fixes_conflict', 'The fixes were changed by another reviewer since this page loaded them; nothing was approved.');
      return [
        {
          type: 'ReviewApproved',
          data: {
            mapping_rule: requireMapping(run, command.mapping_rule ?? run.mapping_rule ?? {}),
            rows_with_problems: command.rows_with_problems ?? 'deliver',
            approved_at: command.at,
          },
        },
      ];

    case 'CancelReview':
      requireOpenReview(run, command.at);
      return [{ type: 'ReviewCanceled', data: { canceled_at: command.at } }];

    case 'StartOutput':
      if (runPhase(run) !== 'producing_output' || run.status !== 'queued') refuse('output_not_queued', 'The final output is not queued.');
      return [{ type: 'OutputStarted', data: { started_at: command.at } }];

    case 'RecordOutputProgress':
      if (!isWritingOutput(run)) refuse('output_not_running', 'The final output is not being produced.');
      return [{ type: 'OutputProgressed', data: { processed_rows: command.processed_rows } }];

    case 'CompleteOutput':
      if (!isWritingOutput(run)) refuse('output_not_running', 'The final output is not being produced.');
      return [{ type: 'OutputProduced', data: command.output }];

    case 'ScheduleWebhook':
      if (run.webhooks?.[command.delivery.event]) refuse('webhook_already_scheduled', 'This webhook was already scheduled.');
      return [{ type: 'WebhookScheduled', data: command.delivery }];

    case 'RecordWebhookAttempt': {
      const delivery = run.webhooks?.[command.attempt.event];
      if (!delivery || delivery.delivery_id !== command.attempt.delivery_id) refuse('webhook_not_scheduled', 'No such webhook is owed.');
      if (delivery!.status !== 'pending') refuse('webhook_settled', 'This webhook was already delivered or given up.');
      if (command.attempt.attempt !== delivery!.attempts + 1) refuse('webhook_attempt_recorded', 'This attempt was already recorded.');
      return [{ type: 'WebhookAttempted', data: command.attempt }];
    }

    case 'ResendWebhook': {
      const found = Object.entries(run.webhooks ?? {}).find(([, d]) => d?.delivery_id === command.delivery_id);
      if (!found) return refuse('webhook_not_scheduled', 'No such webhook delivery.');
      const [event, delivery] = found as [WebhookEventName, NonNullable<RunState['webhooks'][WebhookEventName]>];
      if (delivery.status === 'pending')
        refuse(
          'delivery_pending',
          'This delivery is still pending: its next attempt is already planned. Send it again once it has settled.',
        );
      if (event === 'transformation.finished' && isOutputGone(run, new Date(command.at)))
        refuse(
          'files_deleted',
          "The run's output was deleted when its retention ended: a transformation.finished webhook carries its download link, so it cannot be sent again.",
        );
      return [
        {
          type: 'WebhookResendRequested',
          data: { delivery_id: delivery.delivery_id, event, requested_at: command.at, requested_by: command.requested_by },
        },
      ];
    }

    case 'ExpireUpload':
      if (run.input_source === 'raw') refuse('upload_not_expected', 'A raw-content run takes no upload.');
      if (run.status === 'failed') refuse('run_failed', 'The run has already failed.');
      if (run.source_uploaded) refuse('upload_already_completed', 'The source file was already uploaded.');
      if (!isUploadOverdue(run, new Date(command.at))) refuse('upload_window_open', 'The upload instructions have not expired yet.');
      return [
        {
          type: 'RunFailed',
          data: {
            error: runError('uploadExpired', STAGES.upload, {
              message: `No file was uploaded before the upload instructions expired at ${run.upload_expires_at}.`,
            }),
            failed_at: command.at,
          },
        },
      ];

    case 'PurgeFiles': {
      if (run.files_purged_at) refuse('files_already_purged', "The run's files were already deleted.");
      const due = filesPurgeDue(run, command.retention_seconds);
      if (!due) refuse('files_in_use', 'The run still needs its files (it has not finished, or its review is open).');
      if (Date.parse(due!.due_at) > Date.parse(command.at)) refuse('files_retained', `The run's files are kept until ${due!.due_at}.`);
      return [{ type: 'FilesPurged', data: { keys: runFileKeys(run), reason: due!.reason, purged_at: command.at } }];
    }

    case 'FailRun':
      if (run.status === 'failed') refuse('run_failed', 'The run has already failed.');
      if (isTerminal(run, new Date(command.at))) refuse('run_terminal', 'The run has already finished.');
      return [{ type: 'RunFailed', data: { error: command.error, failed_at: command.at } }];
  }
}
