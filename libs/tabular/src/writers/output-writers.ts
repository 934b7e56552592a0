import Papa from 'papaparse';

export type OutputRecord = Record<string, string | number | boolean | null>;

/**
 * Text chunks of a JSON array of records, written as the records arrive, one object
 * per line, so that no output is ever held whole in memory.
 */
export async function* jsonArrayChunks(batches: AsyncIterable<OutputRecord[]>): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let text = '';
    for (const record of batch) {
      text += (first ? '\n' : ',\n') + JSON.stringify(record);
      first = false;
    }
    yield text;
  }
  yield first ? ']\n' : '\n]\n';
}

/** Text chunks of a CSV file: a header row of field names, then one row per record (RFC 4180 quoting by papaparse). */
export async function* csvChunks(fields: string[], batches: AsyncIterable<OutputRecord[]>): AsyncGenerator<string> {
  yield Papa.unparse([fields]) + '\r\n';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const rows = batch.map((r) => fields.map((f) => (r[f] === null ? '' : String(r[f]))));
    yield Papa.unparse(rows, { header: false }) + '\r\n';
  }
}
