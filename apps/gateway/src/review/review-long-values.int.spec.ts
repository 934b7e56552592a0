import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import type { CpuWork, DuplicateRowsFinder, ProblemCounter } from '@app/cpu-work';
import type { RunState } from '@app/domain';
import { REVIEW_VALUE_CHARS, findProblemRows, readReviewCell, writeRunOutput } from '@app/run-source';
import { PREVIEW_ROWS, ReviewPreviewService } from './review-preview.service';

/**
 * A row may hold MAX_ROW_CHARS (1,000,000) characters: the review's answers send each value cut to REVIEW_VALUE_CHARS
 * and say so (`shortened`), its column samples hold the cut values only, and the output and a cell fix's read still
 * see the whole value. Unbounded, a preview of such rows was 20 MB of JSON read on the API's thread, and the service's
 * heap (HEAP_MB) ran out.
 */
const LONG = 300_000;
const FIELDS: Record<string, FieldDefinition> = {
  note: { description: 'n', data_type: 'string', is_required: false },
  code: { description: 'c', data_type: 'string', is_required: false },
  // Shorter than the bound allows: every long note is a problem, so the rows with problems hold long cells.
  remark: { description: 'r', data_type: 'string', is_required: false, max_length: 10 },
};
const HEADERS = ['note', 'code', 'remark'];
const MAPPING = { note: 'note', code: 'code', remark: 'remark' };

/** Row i: a 300,000-character note (its own letter), a short code, and a remark as long as the note on even rows. */
const noteOf = (i: number) => `${i}:`.padEnd(LONG, String.fromCharCode(97 + (i % 26)));
const csvRow = (i: number) => [noteOf(i), `C${i}`, i % 2 ? 'ok' : noteOf(i)].join(',');
const ROWS = PREVIEW_ROWS + 5;
/** A value as a failure prints it: its length and start, and whether it is `whole`'s start (of 300,000 characters). */
const brief = (value: string | null | undefined, whole: string) =>
  value == null ? value : { chars: value.length, start: value.slice(0, 8), ofWhole: whole.startsWith(value) };
const cut = (whole: string) => ({ chars: REVIEW_VALUE_CHARS, start: whole.slice(0, 8), ofWhole: true });

describe('the review with values of 300,000 characters', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let run: RunState;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'review-long-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    const lines = [HEADERS.join(','), ...Array.from({ length: ROWS }, (_, i) => csvRow(i + 1))];
    await blobs.put('runs/long/source', Readable.from(lines.map((l) => `${l}\n`)));
    run = {
      id: 'long',
      status: 'awaiting_review',
      review_state: 'active',
      review_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      files_purged_at: null,
      schema: { fields: FIELDS },
      source_headers: HEADERS,
      source_key: 'runs/long/source',
      rows_key: 'runs/long/source',
      source_format: 'delimited',
      delimiter: ',',
      encoding: 'utf-8',
      input_has_header: true,
      mapping_rule: MAPPING,
      mapping_version: 1,
      value_fixes: [],
      sheet: null,
      output_format: 'json',
      total_rows: ROWS,
    } as unknown as RunState;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const service = () => new ReviewPreviewService(blobs, {} as CpuWork, {} as DuplicateRowsFinder, {} as ProblemCounter);

  it('previews each long value cut to the bound and marked shortened, short values whole and unmarked', async () => {
    const preview = await service().preview(run, MAPPING);
    expect(preview.rows).toHaveLength(PREVIEW_ROWS);
    preview.rows.forEach((cells, i) => {
      const n = i + 1;
      expect({ ...cells.note, value: brief(cells.note.value, noteOf(n)) }).toEqual({
        value: cut(noteOf(n)),
        problem: null,
        shortened: true,
      });
      expect(cells.code).toEqual({ value: `C${n}`, problem: null });
      // Flagged as before: the problem is the whole value's.
      expect({ ...cells.remark, value: brief(cells.remark.value, n % 2 ? 'ok' : noteOf(n)) }).toEqual(
        n % 2 ? { value: brief('ok', 'ok'), problem: null } : { value: cut(noteOf(n)), problem: 'length', shortened: true },
      );
    });
    expect(JSON.stringify(preview).length).toBeLessThan(PREVIEW_ROWS * 3 * (REVIEW_VALUE_CHARS + 100) + 10_000);
  });

  it('samples each column with cut values only', async () => {
    const { column_samples } = await service().preview(run, MAPPING);
    expect(column_samples.note.map((v, i) => brief(v, noteOf(i + 1)))).toEqual([1, 2, 3].map((n) => cut(noteOf(n))));
    expect(column_samples.code).toEqual(['C1', 'C2', 'C3']);
    expect(column_samples.remark.map((v, i) => (i ? brief(v, noteOf(2 * i)) : v))).toEqual(['ok', cut(noteOf(2)), cut(noteOf(4))]);
  });

  it('lists the rows with problems with their long values cut, the same rows as before', async () => {
    const page = await findProblemRows(blobs, run, MAPPING, { field: null, kind: null, offset: 0, limit: 100 });
    expect(page?.matching).toBe(Math.floor(ROWS / 2));
    expect(page?.rows.map((r) => r.row)).toEqual(Array.from({ length: Math.floor(ROWS / 2) }, (_, i) => 2 * (i + 1)));
    for (const { row, cells } of page!.rows) {
      expect({ ...cells.remark, value: brief(cells.remark.value, noteOf(row)) }).toEqual({
        value: cut(noteOf(row)),
        problem: 'length',
        shortened: true,
      });
      expect(cells.code).toEqual({ value: `C${row}`, problem: null });
    }
  });

  it('reads the whole value for a cell fix, and the output delivers every value whole', async () => {
    const read = await readReviewCell(blobs, run, 'note', 4);
    expect([read?.value === noteOf(4), read?.shown === noteOf(4)]).toEqual([true, true]);
    await writeRunOutput(blobs, run, 'runs/long/output.json', () => undefined);
    const records = JSON.parse(await readAll(blobs, 'runs/long/output.json')) as Record<string, string>[];
    expect(records).toHaveLength(ROWS);
    const whole = records.every(
      (r, i) => r.note === noteOf(i + 1) && r.code === `C${i + 1}` && r.remark === ((i + 1) % 2 ? 'ok' : noteOf(i + 1)),
    );
    expect(whole).toBe(true);
  });
});

async function readAll(blobs: LocalBlobStore, key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.openRead(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
