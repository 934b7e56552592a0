import Papa from 'papaparse';
import { isDecimalNumber } from '@app/domain';

export type OutputRecord = Record<string, string | number | boolean | null>;

/** What JSON.stringify would escape in a string: quotes, backslashes, control characters, and surrogates (lone ones are escaped). */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON.stringify writes it. Most cell values need no escape, and quoting them here
 * costs a third of the call (42-82 against 118-251 ms for a million short values). A surrogate,
 * paired or not, goes to JSON.stringify, which escapes the lone ones.
 */
export const jsonString = (value: string): string => (NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);

/**
 * The body of a JSON array of already serialized items: each item preceded by ",\n". Bodies
 * of consecutive parts of an output, concatenated, are the body of the whole, so an output
 * written in parts (one per thread) is framed once, as JSON_ARRAY_FRAME says, byte for byte
 * what one writer gives. Each batch comes as its UTF-8 bytes (jsonItemBytes).
 */
export async function* jsonArrayBody(batches: AsyncIterable<string[]>): AsyncGenerator<Buffer> {
  for await (const batch of batches) if (batch.length > 0) yield jsonItemBytes(batch);
}

const COMMA = 0x2c;
const LINE_FEED = 0x0a;

/**
 * ",\n" and an item, for each item, as UTF-8, each item encoded on its own. Joined into one text
 * first, a batch took two bytes a character throughout as soon as one of its values had a
 * character past U+00FF (a name such as "Yılmaz", a curly apostrophe), and joining and encoding it
 * then took about twice as long (bench/README.md, "An output's batches as bytes"). Items hold no
 * lone surrogate (jsonString escapes them), so the bytes are those of the joined text.
 */
export function jsonItemBytes(items: readonly string[]): Buffer {
  let size = 0;
  for (const item of items) size += 2 + Buffer.byteLength(item);
  // Every byte is written below, so nothing of the uninitialised memory is left in it.
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const item of items) {
    bytes[at++] = COMMA;
    bytes[at++] = LINE_FEED;
    at += bytes.write(item, at);
  }
  return at === size ? bytes : bytes.subarray(0, at);
}

/**
 * How a JSON array frames its body: "[" before it, the first item's separator cut to its line
 * break (",\n" is one byte and then the line break), and an end that depends on whether any
 * item came. For jsonArrayFramed and for an output joined from parts whose sizes are known.
 */
export const JSON_ARRAY_FRAME = {
  open: '[',
  firstSeparatorBytes: 1,
  close: (empty: boolean): string => (empty ? ']\n' : '\n]\n'),
} as const;

/**
 * A JSON array around a body (jsonArrayBody's text, as strings or bytes): one item per line,
 * written as it arrives, so no output is ever held whole in memory.
 */
export async function* jsonArrayFramed<C extends string | Buffer>(body: AsyncIterable<C>): AsyncGenerator<string | C> {
  const framing = { empty: true };
  yield* jsonArrayOpened(body, framing);
  yield JSON_ARRAY_FRAME.close(framing.empty);
}

/**
 * The start of a JSON array around a body, without its end: "[" and the body, its first separator
 * cut. The first part of an output written in parts, which the join then extends (joinOutputParts).
 * `framing.empty` says, once the body is read, whether no item came.
 */
export async function* jsonArrayOpened<C extends string | Buffer>(
  body: AsyncIterable<C>,
  framing: { empty: boolean } = { empty: true },
): AsyncGenerator<string | C> {
  yield JSON_ARRAY_FRAME.open;
  for await (const chunk of body) {
    if (chunk.length === 0) continue;
    yield framing.empty ? (chunk.slice(JSON_ARRAY_FRAME.firstSeparatorBytes) as C) : chunk;
    framing.empty = false;
  }
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
  /** Off for a part of an output after the first (its rows follow another part's). */
  header?: boolean;
}

/** Text chunks of a CSV file: a header row of field names, then one row per record (RFC 4180 quoting by papaparse). */
export async function* csvChunks(
  fields: string[],
  batches: AsyncIterable<OutputRecord[]>,
  options: CsvOptions = {},
): AsyncGenerator<string> {
  const cell = options.neutralizeFormulas === false ? (v: string) => v : neutralizeFormula;
  if (options.header !== false) yield Papa.unparse([fields.map(cell)]) + '\r\n';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const rows = batch.map((r) => fields.map((f) => (r[f] === null ? '' : cell(String(r[f])))));
    yield Papa.unparse(rows, { header: false }) + '\r\n';
  }
}
