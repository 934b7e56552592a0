import Papa from 'papaparse';
import { isDecimalNumber } from '@app/domain';

export type OutputRecord = Record<string, string | number | boolean | null>;

/**
 * Text chunks of a JSON array, written as its items arrive, one item per line, so that no
 * output is ever held whole in memory. Items come already serialized (JSON texts), in
 * batches: the caller knows its records' shape and writes them without an object each.
 */
export async function* jsonArrayChunks(batches: AsyncIterable<string[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield (first ? '\n' : ',\n') + batch.join(',\n');
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * OWASP CSV injection: a cell that starts with = + - @ TAB or CR is run as a formula by
 * spreadsheet programs, so it gets a leading apostrophe. Plain numbers such as -5 are
 * left alone: no spreadsheet executes them.
 */
export const neutralizeFormula = (value: string): string => (FORMULA_START.test(value) && !isDecimalNumber(value) ? `'${value}` : value);

export interface CsvOptions {
  /** On for files people download (default); off for the service's own intermediate files. */
  neutralizeFormulas?: boolean;
}

/** Text chunks of a CSV file: a header row of field names, then one row per record (RFC 4180 quoting by papaparse). */
export async function* csvChunks(
  fields: string[],
  batches: AsyncIterable<OutputRecord[]>,
  options: CsvOptions = {},
): AsyncGenerator<string> {
  const cell = options.neutralizeFormulas === false ? (v: string) => v : neutralizeFormula;
  yield Papa.unparse([fields.map(cell)]) + '\r\n';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const rows = batch.map((r) => fields.map((f) => (r[f] === null ? '' : cell(String(r[f])))));
    yield Papa.unparse(rows, { header: false }) + '\r\n';
  }
}
