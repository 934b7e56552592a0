import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import { cellOf, type DuplicateRows, type FieldPlan, type RunState } from '@app/domain';
import { csvChunks, jsonArrayChunks, type OutputRecord } from '@app/tabular';
import { readMappedSource, readPlannedRows, type MappedSource } from './mapped-rows';

export interface OutputWritten {
  /** Rows written. */
  rows: number;
  /** Rows read that had a problem, written or not. */
  rowsWithProblems: number;
  /** Rows with a problem left out (the reviewer chose `exclude` at approval). */
  rowsExcluded: number;
}

/**
 * One JSON object per row, written straight from the mapped cells: keys are escaped once
 * per run, and no record object is built per row only to be stringified (a million
 * objects were a third of the output's time and most of its garbage). The text is what
 * JSON.stringify of the record gives: keys in schema order, the same escaping.
 */
function jsonLineWriter(plan: FieldPlan[]): (row: string[], rowNumber: number) => { line: string; problem: boolean } {
  const keys = plan.map((p, i) => `${i === 0 ? '{' : ','}${JSON.stringify(p.name)}:`);
  return (row, rowNumber) => {
    let line = '';
    let problem = false;
    for (let i = 0; i < plan.length; i++) {
      const p = plan[i];
      const checked = p.check(cellOf(p, row, rowNumber));
      if (checked.problem !== null || (p.duplicate !== null && p.duplicate(rowNumber))) problem = true;
      const v = checked.value;
      line += keys[i] + (typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : String(v));
    }
    return { line: plan.length === 0 ? '{}' : `${line}}`, problem };
  };
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
  duplicates: DuplicateRows | null = null,
): Promise<OutputWritten> {
  const counts: OutputWritten = { rows: 0, rowsWithProblems: 0, rowsExcluded: 0 };
  const typed = run.output_format === 'json';
  const mapping = run.mapping_rule ?? {};
  const exclude = run.problem_rows_choice === 'exclude';
  let read = 0;

  async function* jsonLines(): AsyncGenerator<string[]> {
    const source = await readPlannedRows(blobs, run, mapping, duplicates);
    const lineOf = jsonLineWriter(source.plan);
    for await (const batch of source.batches) {
      const lines: string[] = [];
      for (const row of batch) {
        const { line, problem } = lineOf(row, ++read);
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

  async function* csvRecords(source: MappedSource): AsyncGenerator<OutputRecord[]> {
    for await (const batch of source.batches) {
      const out: OutputRecord[] = [];
      for (const mapped of batch) {
        read++;
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

  let chunks: AsyncGenerator<string>;
  if (typed) {
    chunks = jsonArrayChunks(jsonLines());
  } else {
    const source = await readMappedSource(blobs, run, mapping, { typed: false, duplicates });
    chunks = csvChunks(
      source.plan.map((p) => p.name),
      csvRecords(source),
    );
  }
  await blobs.put(key, Readable.from(chunks), { contentType: typed ? 'application/json' : 'text/csv' });
  return counts;
}
