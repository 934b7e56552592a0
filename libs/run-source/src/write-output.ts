import { Readable } from 'node:stream';
import type { BlobStore } from '@app/blob-storage';
import { cellOf, type FieldPlan, type RunState } from '@app/domain';
import { csvChunks, jsonArrayChunks, type OutputRecord } from '@app/tabular';
import { readMappedSource, readPlannedRows, type MappedSource } from './mapped-rows';

export interface OutputWritten {
  rows: number;
  rowsWithProblems: number;
}

/**
 * One JSON object per row, written straight from the mapped cells: keys are escaped once
 * per run, and no record object is built per row only to be stringified (a million
 * objects were a third of the output's time and most of its garbage). The text is what
 * JSON.stringify of the record gives: keys in schema order, the same escaping.
 */
function jsonLineWriter(plan: FieldPlan[]): (row: string[]) => { line: string; problem: boolean } {
  const keys = plan.map((p, i) => `${i === 0 ? '{' : ','}${JSON.stringify(p.name)}:`);
  return (row) => {
    let line = '';
    let problem = false;
    for (let i = 0; i < plan.length; i++) {
      const p = plan[i];
      const checked = p.check(cellOf(p, row));
      if (checked.problem) problem = true;
      const v = checked.value;
      line += keys[i] + (typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : String(v));
    }
    return { line: plan.length === 0 ? '{}' : `${line}}`, problem };
  };
}

/**
 * Writes a run's output (json or csv) from its stored source through the approved
 * mapping. The blob is written atomically by the store, so a crash leaves no partial
 * output. `onProgress` hears the rows written so far, after each batch.
 */
export async function writeRunOutput(
  blobs: BlobStore,
  run: RunState,
  key: string,
  onProgress: (rows: number) => void,
): Promise<OutputWritten> {
  const counts: OutputWritten = { rows: 0, rowsWithProblems: 0 };
  const typed = run.output_format === 'json';
  const mapping = run.mapping_rule ?? {};

  async function* jsonLines(): AsyncGenerator<string[]> {
    const source = await readPlannedRows(blobs, run, mapping);
    const lineOf = jsonLineWriter(source.plan);
    for await (const batch of source.batches) {
      const lines = new Array<string>(batch.length);
      for (let i = 0; i < batch.length; i++) {
        const { line, problem } = lineOf(batch[i]);
        if (problem) counts.rowsWithProblems++;
        lines[i] = line;
      }
      counts.rows += batch.length;
      onProgress(counts.rows);
      yield lines;
    }
  }

  async function* csvRecords(source: MappedSource): AsyncGenerator<OutputRecord[]> {
    for await (const batch of source.batches) {
      const out: OutputRecord[] = [];
      for (const mapped of batch) {
        if (mapped.problems.length > 0) counts.rowsWithProblems++;
        out.push(mapped.record);
      }
      counts.rows += out.length;
      onProgress(counts.rows);
      yield out;
    }
  }

  let chunks: AsyncGenerator<string>;
  if (typed) {
    chunks = jsonArrayChunks(jsonLines());
  } else {
    const source = await readMappedSource(blobs, run, mapping, { typed: false });
    chunks = csvChunks(
      source.plan.map((p) => p.name),
      csvRecords(source),
    );
  }
  await blobs.put(key, Readable.from(chunks), { contentType: typed ? 'application/json' : 'text/csv' });
  return counts;
}
