import Papa from 'papaparse';
import { Readable } from 'node:stream';
import { BATCH_ROWS, type OpenedTable } from './table-reader';

const DELIMITERS = [',', ';', '\t', '|'];
const SAMPLE_CHARS = 64 * 1024;

/** Papaparse's own guess over a sample of the file; comma when it cannot tell. */
export function detectDelimiter(sample: string): string {
  const guess = Papa.parse<string[]>(sample, { preview: 50, delimitersToGuess: DELIMITERS, skipEmptyLines: 'greedy' });
  return guess.meta.delimiter && DELIMITERS.includes(guess.meta.delimiter) ? guess.meta.delimiter : ',';
}

/** Reads the first characters of a text stream, and gives back a stream that still starts with them. */
async function peek(text: AsyncIterator<string>, chars: number): Promise<{ head: string; rest: Readable }> {
  let head = '';
  let done = false;
  while (head.length < chars && !done) {
    const next = await text.next();
    if (next.done) done = true;
    else head += next.value;
  }
  async function* replay() {
    if (head) yield head;
    if (done) return;
    for (let n = await text.next(); !n.done; n = await text.next()) yield n.value;
  }
  return { head, rest: Readable.from(replay(), { objectMode: false, encoding: 'utf8' }) };
}

/**
 * Streams a CSV/TSV/TXT file as batches of rows with papaparse, never holding the file:
 * papaparse's Node duplex stream gives back-pressure. UTF-8, with or without BOM.
 * The delimiter is the given one, or papaparse's guess on the first 64 KiB.
 */
export async function openDelimited(input: Readable, delimiter: string | null): Promise<OpenedTable> {
  // Strings, not Buffers: papaparse would split multi-byte characters at chunk boundaries.
  input.setEncoding('utf8');
  const { head, rest } = await peek(input[Symbol.asyncIterator]() as AsyncIterator<string>, SAMPLE_CHARS);
  const sample = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const chosen = delimiter ?? detectDelimiter(sample);
  let stripBom = head.charCodeAt(0) === 0xfeff;

  async function* batches(): AsyncGenerator<string[][]> {
    const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: chosen, skipEmptyLines: 'greedy' }) as unknown as NodeJS.ReadWriteStream & Readable;
    rest.on('error', (e) => parser.destroy(e));
    input.on('error', (e) => parser.destroy(e));
    rest.pipe(parser);
    let batch: string[][] = [];
    try {
      for await (const row of parser as AsyncIterable<string[]>) {
        if (stripBom) {
          row[0] = row[0].replace(/^\uFEFF/, '');
          stripBom = false;
        }
        batch.push(row);
        if (batch.length >= BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      rest.destroy();
      input.destroy();
    }
  }
  return { format: 'delimited', delimiter: chosen, encoding: 'utf-8', batches: batches() };
}
