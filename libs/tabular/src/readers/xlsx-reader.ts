import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import { peekBytes } from './byte-peek';
import { SNIFF_BYTES, checkContent } from './content-sniffing';
import { DEFAULT_TABLE_LIMITS, SourceProblem, checkRow, type TableLimits } from './source-problem';
import { BATCH_ROWS, type OpenedTable } from './table-reader';
import { checkXlsxPackage } from './xlsx-package-check';
import { spoolToTempFile } from './temp-spool';

const pad = (n: number) => String(n).padStart(2, '0');

/** Excel dates carry no zone; exceljs gives them as UTC instants. Midnight is a plain date. */
function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0) return date;
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The text of one cell value as exceljs gives it: formulas give their cached result. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (v instanceof Date) return dateText(v);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return (o.richText as { text: string }[]).map((r) => r.text).join('');
    if ('result' in o) return cellText(o.result);
    if ('formula' in o || 'sharedFormula' in o) return '';
    if ('text' in o) return cellText(o.text);
    if ('error' in o) return '';
    return ''; // an object exceljs does not describe (a hyperlink without text, say) has no text of its own
  }
  return typeof v === 'bigint' ? v.toString() : '';
}

/** Row values from exceljs are 1-based and sparse; this gives a dense 0-based row without trailing empties. */
function rowTexts(values: unknown): string[] {
  const arr = Array.isArray(values) ? values : [];
  const out: string[] = [];
  for (let i = 1; i < arr.length; i++) out.push(cellText(arr[i]));
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** How long the workbook reader may go without reading input or producing anything. */
export const XLSX_STALL_MS = 3000;

/**
 * exceljs can wait forever on a damaged package (found by fuzzing: one changed byte is
 * enough). The input is passed through a clock that notes every chunk read, and every
 * step of exceljs's iterators is raced against a watchdog that fires when neither input
 * was read nor anything produced for `stallMs`.
 */
function watchdog(source: Readable, stallMs: number) {
  let lastActivity = Date.now();
  async function* clocked(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      lastActivity = Date.now();
      yield chunk as Buffer;
    }
  }
  const input = Readable.from(clocked(), { objectMode: false });
  input.once('close', () => source.destroy());
  async function* guarded<T>(iterable: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = iterable[Symbol.asyncIterator]();
    for (;;) {
      const step = iterator.next();
      lastActivity = Math.max(lastActivity, Date.now());
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setInterval(
          () => {
            if (Date.now() - lastActivity > stallMs)
              reject(new SourceProblem('unreadableFile', 'The workbook is damaged: its contents could not be read.'));
          },
          Math.min(100, stallMs),
        );
      });
      try {
        const next = await Promise.race([step, stalled]);
        if (next.done) return;
        lastActivity = Date.now();
        yield next.value;
      } finally {
        clearInterval(timer);
      }
    }
  }
  return { input, guarded };
}

/**
 * The package checked (zip bombs, hidden parts, DTDs) on a temporary copy, reopened for
 * exceljs. Stored sources were checked when ingested, so later reads skip this
 * (`packageChecked`): a 20-row preview should not unpack the whole workbook again.
 */
async function checkedCopy(replay: Readable, limits: TableLimits): Promise<Readable> {
  const spool = await spoolToTempFile(replay);
  try {
    await checkXlsxPackage(spool.path, limits);
  } catch (err) {
    await spool.remove();
    throw err;
  }
  return spool.reopen();
}

/**
 * Checks the package (xlsx-package-check), then streams the first non-empty worksheet of an XLSX file with exceljs's streaming reader
 * (the whole-workbook reader needs about 1 GB for an 18 MB file). Empty rows are skipped.
 */
export async function openXlsx(
  source: Readable,
  limits: TableLimits = DEFAULT_TABLE_LIMITS,
  stallMs = XLSX_STALL_MS,
  options: { packageChecked?: boolean } = {},
): Promise<OpenedTable> {
  const { head, replay } = await peekBytes(source, SNIFF_BYTES);
  try {
    checkContent(head, 'xlsx');
  } catch (err) {
    replay.destroy();
    throw err;
  }
  const { input, guarded } = watchdog(options.packageChecked ? replay : await checkedCopy(replay, limits), stallMs);
  async function* batches(): AsyncGenerator<string[][]> {
    let rows = 0;
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    });
    // A damaged package can also make exceljs's inner streams emit errors nobody awaits.
    (reader as unknown as NodeJS.EventEmitter).on('error', () => undefined);
    let found = false;
    try {
      for await (const sheet of guarded(reader as unknown as AsyncIterable<unknown>)) {
        if (found) continue; // later sheets are read past, not used
        let batch: string[][] = [];
        // exceljs yields rows one by one or in arrays depending on the version: accept both.
        for await (const item of guarded(sheet as AsyncIterable<ExcelJS.Row | ExcelJS.Row[]>)) {
          for (const row of Array.isArray(item) ? item : [item]) {
            const texts = rowTexts(row.values);
            if (texts.length === 0 || texts.every((t) => t.trim() === '')) continue;
            checkRow(texts, ++rows, limits);
            batch.push(texts);
            found = true;
            if (batch.length >= BATCH_ROWS) {
              yield batch;
              batch = [];
            }
          }
        }
        if (batch.length > 0) yield batch;
      }
    } finally {
      input.destroy();
    }
  }
  return { format: 'xlsx', delimiter: null, encoding: 'xlsx', batches: batches() };
}
