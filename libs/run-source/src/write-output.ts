import { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore, type JoinedPiece, type PutOptions } from '@app/blob-storage';
import { cellOf, detached, RememberedResults, rememberedShare, type DuplicateRows, type FieldPlan, type RunState } from '@app/domain';
import { csvChunks, jsonArrayBody, jsonArrayFramed, jsonArrayOpened, jsonString, JSON_ARRAY_FRAME, type OutputRecord } from '@app/tabular';
import { readMappedSource, readPlannedRows } from './mapped-rows';
import { WHOLE_FILE, within, type RowRange } from './row-range';

export interface OutputWritten {
  /** Rows written. */
  rows: number;
  /** Rows read that had a problem, written or not. */
  rowsWithProblems: number;
  /** Rows left out at the reviewer's choice: each row left out by hand, and with `exclude` chosen at approval those with a problem. */
  rowsExcluded: number;
}

/** How an output (or a part of one) is written. */
export interface OutputWriteOptions {
  /** The duplicates pass's answer, when the schema asks for unique values. */
  duplicates?: DuplicateRows | null;
  /** The output's limit (apps/output/src/output-limit.ts): past it the store keeps nothing and throws BlobTooLargeError. */
  maxBytes?: number;
  /**
   * Aborted, the write stops before its next batch and the store keeps nothing of it: a part of an output
   * is stopped this way when another part fails, so its thread carries on and its temporary file is removed.
   */
  signal?: AbortSignal;
}

/** A field's member of a JSON line (`,"name":value`, `{` first) as remembered, and whether its value has a problem of its own. */
interface JsonMember {
  text: string;
  problem: boolean;
}

/**
 * One JSON object per row, written straight from the mapped cells: keys are escaped once
 * per run, and no record object is built per row only to be stringified (a million
 * objects were a third of the output's time and most of its garbage). The text is what
 * JSON.stringify of the record gives: keys in schema order, the same escaping.
 *
 * Without fixes a field's member depends on the cell's text alone, so a repeated cell's member
 * is remembered whole (one look-up for its transformations, checks and escaping); a reviewer's
 * fixes depend on the row, so with them the member is built each time. A member built is no
 * object, only its text (its problem goes to the line's flag): a column of new values then
 * makes no more garbage than before there was a memory.
 */
function jsonLineWriter(plan: FieldPlan[]): (row: string[], rowNumber: number) => { line: string; problem: boolean } {
  let problem = false; // the line's: set by a member whose value has a problem of its own
  const remembered = rememberedShare(plan.length);
  const members = plan.map((p, i): ((row: string[], rowNumber: number) => string) => {
    const key = `${i === 0 ? '{' : ','}${JSON.stringify(p.name)}:`;
    const member = (value: string): string => {
      const { value: v, problem: own } = p.check(value);
      if (own !== null) problem = true;
      return key + (typeof v === 'string' ? jsonString(v) : v === null ? 'null' : String(v));
    };
    if (p.fix !== null) return (row, rowNumber) => member(cellOf(p, row, rowNumber));
    // Kept flat and detached: a value's text may have been cut from the cell, and the cell from its chunk.
    const memory = new RememberedResults<JsonMember>((m) => Object.freeze({ text: detached(m.text), problem: m.problem }), remembered);
    return (row) => {
      const raw = p.column >= 0 ? (row[p.column] ?? '') : '';
      const known = memory.recall(raw);
      if (known !== undefined) {
        if (known.problem) problem = true;
        return known.text;
      }
      const before = problem;
      problem = false;
      const text = member(p.transform(raw));
      const own = problem;
      problem = before || own;
      return memory.on ? memory.remember(raw, { text, problem: own }).text : text;
    };
  });
  return (row, rowNumber) => {
    problem = false;
    let line = '';
    for (let i = 0; i < plan.length; i++) {
      line += members[i](row, rowNumber);
      const duplicate = plan[i].duplicate;
      if (duplicate !== null && duplicate(rowNumber)) problem = true;
    }
    return { line: plan.length === 0 ? '{}' : `${line}}`, problem };
  };
}

/**
 * The text of a range of a run's output through the approved mapping and fixes: for JSON the
 * array's body (jsonArrayBody), for CSV the rows (with the header row when `header`). Rows
 * with a problem are left out when the reviewer chose so; `counts` grows as rows are read and
 * `onProgress` hears the rows read so far after each batch. `rows`: the source's rows the text
 * is made of, to give up when the text is (putClosingOnFailure).
 */
async function outputText(
  blobs: BlobStore,
  run: RunState,
  range: RowRange,
  header: boolean,
  counts: OutputWritten,
  onProgress: (rows: number) => void,
  { duplicates = null, signal }: OutputWriteOptions,
): Promise<{ text: AsyncGenerator<string | Buffer>; rows: AsyncGenerator<unknown> }> {
  const mapping = run.mapping_rule ?? {};
  const exclude = run.problem_rows_choice === 'exclude';
  let read = 0;

  if (run.output_format === 'json') {
    const source = await readPlannedRows(blobs, run, mapping, duplicates, range.fromRow);
    const lineOf = jsonLineWriter(source.plan);
    async function* jsonLines(): AsyncGenerator<string[]> {
      for await (const batch of within(source.batches, range)) {
        signal?.throwIfAborted();
        const lines: string[] = [];
        for (const row of batch) {
          const rowNumber = range.fromRow + read++;
          if (source.leftOut !== null && source.leftOut(rowNumber)) {
            counts.rowsExcluded++;
            continue;
          }
          const { line, problem } = lineOf(row, rowNumber);
          if (problem) {
            counts.rowsWithProblems++;
            if (exclude) {
              counts.rowsExcluded++;
              continue;
            }
          }
          lines.push(line);
        }
        counts.rows += lines.length;
        onProgress(read);
        yield lines;
      }
    }
    return { text: jsonArrayBody(jsonLines()), rows: source.batches };
  }

  const source = await readMappedSource(blobs, run, mapping, { typed: false, duplicates, fromRow: range.fromRow });
  async function* csvRecords(): AsyncGenerator<OutputRecord[]> {
    for await (const batch of within(source.batches, range)) {
      signal?.throwIfAborted();
      const out: OutputRecord[] = [];
      for (const mapped of batch) {
        read++;
        if (mapped.left_out) {
          counts.rowsExcluded++;
          continue;
        }
        if (mapped.problems.length > 0) {
          counts.rowsWithProblems++;
          if (exclude) {
            counts.rowsExcluded++;
            continue;
          }
        }
        out.push(mapped.record);
      }
      counts.rows += out.length;
      onProgress(read);
      yield out;
    }
  }
  return {
    text: csvChunks(
      source.plan.map((p) => p.name),
      csvRecords(),
      { header },
    ),
    rows: source.batches,
  };
}

/**
 * At most one batch's text made before the file takes it, not the 16 a stream of objects holds by
 * default: texts waiting in that queue (up to about 1 MB) can outlive young collections and be promoted
 * to the old generation only to die there (bench/README.md, "Decoded texts").
 */
const ONE_BATCH_AHEAD = { objectMode: true, highWaterMark: 1 } as const;

const contentTypeOf = (run: RunState): string => (run.output_format === 'json' ? 'application/json' : 'text/csv');

/**
 * Puts an output's text, and closes it when the put fails: a store that refuses a body (past
 * `maxBytes`, or failing) may leave it to its owner unread, and the read of the source behind it
 * (an open file, an S3 GET) would stay open until collected. A put that succeeded read it to its end.
 * The source's `rows` are given up too: a body refused before its first read never started the
 * generators it is made of, and the destroy reaches no further than the first of them.
 */
async function putClosingOnFailure(
  blobs: BlobStore,
  key: string,
  body: Readable,
  rows: AsyncGenerator<unknown>,
  options: PutOptions,
): Promise<void> {
  try {
    await blobs.put(key, body, options);
  } catch (err) {
    body.destroy();
    // Not awaited: a started read gives up once its read under way is done (the put's error is the one to report).
    rows.return(undefined).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes a run's output (json or csv) from its stored source through the approved
 * mapping and fixes. Rows with a problem are left out when the reviewer chose so. The blob
 * is written atomically by the store, so a crash leaves no partial output. `onProgress`
 * hears the rows read so far, after each batch.
 */
export async function writeRunOutput(
  blobs: BlobStore,
  run: RunState,
  key: string,
  onProgress: (rows: number) => void,
  options: OutputWriteOptions = {},
): Promise<OutputWritten> {
  const counts: OutputWritten = { rows: 0, rowsWithProblems: 0, rowsExcluded: 0 };
  const { text, rows } = await outputText(blobs, run, WHOLE_FILE, true, counts, onProgress, options);
  const chunks = run.output_format === 'json' ? jsonArrayFramed(text) : text;
  await putClosingOnFailure(blobs, key, Readable.from(chunks, ONE_BATCH_AHEAD), rows, {
    contentType: contentTypeOf(run),
    maxBytes: options.maxBytes,
  });
  return counts;
}

/**
 * Writes one part of a run's output (a range of its rows) to `key`, for an output written by
 * several threads at once: the parts, joined in order by joinOutputParts, are byte for byte
 * what writeRunOutput writes. The first part (from row 1) is the output's start: the CSV header
 * row, or the JSON array's opening; a local store's join then extends it in place. It is made
 * durable as it ends, while the other threads still work, so the join's own flush is only of
 * the bytes it appends. Those later parts are copied and deleted: scratch, not flushed at all.
 * `maxBytes` is the whole output's limit: a part past it alone is refused at once (BlobTooLargeError).
 */
export async function writeOutputPart(
  blobs: BlobStore,
  run: RunState,
  key: string,
  range: RowRange,
  onProgress: (rows: number) => void,
  options: OutputWriteOptions = {},
): Promise<OutputWritten> {
  const counts: OutputWritten = { rows: 0, rowsWithProblems: 0, rowsExcluded: 0 };
  const first = range.fromRow === 1;
  const { maxBytes } = options;
  const { text, rows } = await outputText(blobs, run, range, first, counts, onProgress, options);
  const chunks = first && run.output_format === 'json' ? jsonArrayOpened(text) : text;
  await putClosingOnFailure(blobs, key, Readable.from(chunks, ONE_BATCH_AHEAD), rows, {
    contentType: 'application/octet-stream',
    scratch: !first,
    maxBytes,
  });
  return counts;
}

/**
 * Joins the parts of an output, in order (the first from row 1), into the run's output at `key`,
 * atomically as every put. The parts are given up to the join (a local store extends the first
 * in place instead of copying it); the caller deletes what is left of them. A JSON output's
 * first part holds the array's opening and the later ones are array bodies: they are framed as
 * jsonArrayFramed frames a body, from their sizes. Past `maxBytes` nothing is kept (BlobTooLargeError).
 */
export async function joinOutputParts(blobs: BlobStore, run: RunState, key: string, partKeys: string[], maxBytes?: number): Promise<void> {
  const options = { contentType: contentTypeOf(run), maxBytes };
  if (run.output_format !== 'json') {
    await blobs.putJoined(
      key,
      partKeys.map((part) => ({ key: part, take: true })),
      options,
    );
    return;
  }
  const pieces: JoinedPiece[] = [];
  let empty = true;
  for (const [i, part] of partKeys.entries()) {
    const size = (await blobs.stat(part))?.size;
    if (size === undefined) throw new BlobNotFoundError(part);
    if (i === 0) {
      // The opening "[" and then, if any row came, the first part's body with its first separator cut.
      pieces.push({ key: part, take: true });
      empty = size === Buffer.byteLength(JSON_ARRAY_FRAME.open);
      continue;
    }
    if (size === 0) continue;
    pieces.push({ key: part, start: empty ? JSON_ARRAY_FRAME.firstSeparatorBytes : 0, take: true });
    empty = false;
  }
  pieces.push(JSON_ARRAY_FRAME.close(empty));
  await blobs.putJoined(key, pieces, options);
}
