import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalBlobStore, UrlSigner } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import { rowIndexKeyOf, type CellProblem, type RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { countMappingProblems, joinProblemTallies } from './count-problems';
import { findProblemRows } from './find-problem-rows';
import { inspectStructuredFile } from './inspect-structured-file';
import { readPlannedRows } from './mapped-rows';
import { pageRows, pageStart, SEGMENT_ROWS } from './problem-segments';

/**
 * A file big enough for many row index entries and problem segments: pages far into it,
 * started at the segment and index entry the count and ingestion recorded, hold exactly the
 * rows a read from the top finds, for every filter.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true },
  age: { description: 'a', data_type: 'integer', is_required: false },
  note: { description: 'n', data_type: 'string', is_required: false },
};

function fileOf(rows: number): string {
  const lines = ['Mail,Age,Note'];
  for (let i = 1; i <= rows; i++) {
    const email = i % 17 === 0 ? '' : i % 11 === 0 ? 'not-an-address' : `p${i}@example.org`;
    const age = i % 13 === 0 ? 'x' : String(i % 90);
    // Quoted notes with commas and line breaks move row starts away from line starts.
    const note = i % 7 === 0 ? `"line one, ""quoted""\nline two ${i}"` : `plain ${i}`;
    lines.push(`${email},${age},${note}`);
  }
  return lines.join('\r\n') + '\r\n';
}

describe('pages of rows with problems anywhere in a big file', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  let run: RunState;
  const mapping = { email: 'Mail', age: 'Age', note: 'Note' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pages-anywhere-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
    const key = 'runs/big/source';
    await blobs.put(key, Readable.from([Buffer.from(fileOf(40_000))]));
    const base = { id: 'big', filename: 'big.csv', schema: { fields: FIELDS }, source_key: key, rows_key: key } as unknown as RunState;
    const outcome = await inspectStructuredFile(blobs, base, DEFAULT_TABLE_LIMITS, () => undefined);
    if (!('parsed' in outcome)) throw new Error('not parsed');
    run = { ...base, ...outcome.parsed, output_format: 'json' } as unknown as RunState;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores a row index beside the file on its first read', async () => {
    expect(run.total_rows).toBe(40_000);
    expect(await blobs.stat(rowIndexKeyOf(run.source_key))).not.toBeNull();
  });

  it('reads from any data row the rows a read from the top gives there', async () => {
    const all = await readPlannedRows(blobs, run, mapping);
    const top: string[][] = [];
    for await (const batch of all.batches) top.push(...batch);
    for (const from of [2500, 17_777, 39_999]) {
      const part = await readPlannedRows(blobs, run, mapping, null, from);
      expect(part.firstRow).toBe(from);
      const first = (await part.batches.next()).value as string[][];
      await part.batches.return(undefined);
      expect(first.slice(0, 5)).toEqual(top.slice(from - 1, from + 4));
    }
  });

  it('gives every page the same rows started at its segment as read from the top', async () => {
    const tally = (await countMappingProblems(blobs, run, mapping))!;
    const filters: [string | null, CellProblem | null][] = [
      [null, null],
      ['email', null],
      ['email', 'required'],
      [null, 'type'],
      ['age', 'type'],
    ];
    for (const [field, kind] of filters) {
      const matching =
        field && kind
          ? tally.problems_by_field_and_kind[field][kind]
          : field
            ? tally.problems_by_field[field]
            : kind
              ? tally.rows_by_kind[kind]
              : tally.rows_with_problems;
      expect(matching).toBeGreaterThan(100);
      for (const offset of [0, Math.floor(matching / 2), matching - 3]) {
        const query = { field, kind, offset, limit: 20 };
        const fromTop = (await findProblemRows(blobs, run, mapping, query))!;
        const start = pageStart(tally.segments, query);
        expect(start).not.toBeNull();
        if (offset > 0) expect(start!.row).toBeGreaterThan(1);
        const known = { matching, rows_checked: tally.rows_checked };
        const started = (await findProblemRows(blobs, run, mapping, { ...query, known, start: start! }))!;
        expect(started.rows).toEqual(fromTop.rows);
        expect(started.rows.length).toBe(Math.min(20, matching - offset));
        expect(fromTop.matching).toBe(matching);
        // Over every field the count's rows name the page's own rows: read and mapped, they are the same page.
        const rows = pageRows(tally.segments, query);
        if (field !== null) expect(rows).toBeNull();
        else {
          expect(rows).toEqual(fromTop.rows.map((r) => r.row));
          expect((await findProblemRows(blobs, run, mapping, { ...query, known, rows: rows! }))!.rows).toEqual(fromTop.rows);
        }
      }
    }
  }, 120_000);

  it('answers a page past the last match at once, without reading the file', async () => {
    const tally = (await countMappingProblems(blobs, run, mapping))!;
    const known = { matching: tally.problems_by_field.age, rows_checked: tally.rows_checked };
    const gone = { ...run, source_key: 'runs/none/source', rows_key: 'runs/none/source' };
    expect(await findProblemRows(blobs, gone, mapping, { field: 'age', kind: null, offset: known.matching, limit: 20, known })).toEqual({
      rows: [],
      ...known,
    });
    // The same page of a file that is there, from the top, is empty too: the shortcut answers what a read would.
    const read = (await findProblemRows(blobs, run, mapping, { field: 'age', kind: null, offset: known.matching, limit: 20 }))!;
    expect(read).toEqual({ rows: [], ...known });
  });

  it('refuses to show a row the count listed when the row has no such problem', async () => {
    const tally = (await countMappingProblems(blobs, run, mapping))!;
    const known = { matching: tally.rows_with_problems, rows_checked: tally.rows_checked };
    // Row 1 has no problem (a good address, age 1, a plain note); row 11's address is bad.
    await expect(
      findProblemRows(blobs, run, mapping, { field: null, kind: null, offset: 0, limit: 20, known, rows: [1, 11] }),
    ).rejects.toThrow('row 1 was counted with a problem');
    const page = (await findProblemRows(blobs, run, mapping, { field: null, kind: null, offset: 0, limit: 20, known, rows: [11] }))!;
    expect(page.rows.map((r) => r.row)).toEqual([11]);
    expect(page.rows[0].cells.email.problem).toBe('type');
  });

  describe('counted in ranges (two threads, each over half the file)', () => {
    const countInRanges = async (counted: RunState, cuts: number[]) => {
      const starts = [1, ...cuts];
      const ranges = starts.map((fromRow, i) => ({ fromRow, toRow: i + 1 < starts.length ? starts[i + 1] - 1 : null }));
      const tallies = await Promise.all(
        ranges.map((range) => countMappingProblems(blobs, counted, mapping, undefined, undefined, null, range)),
      );
      return joinProblemTallies(ranges.map((range, i) => ({ range, tally: tallies[i]! })));
    };

    it.each([
      ['a cut on a segment boundary', [3 * SEGMENT_ROWS + 1]],
      ['a cut inside a segment', [17_777]],
      ['three ranges, one of a single row', [20_000, 20_001]],
    ])('joins to the count of the whole file with %s: figures and page segments', async (_, cuts) => {
      const whole = (await countMappingProblems(blobs, run, mapping))!;
      const joined = await countInRanges(run, cuts);
      expect(joined).toEqual(whole);
      expect(pageStart(joined.segments, { field: 'age', kind: 'type', offset: 1500 })).toEqual(
        pageStart(whole.segments, { field: 'age', kind: 'type', offset: 1500 }),
      );
    });

    it("checks each row under its own number: a reviewer's fix of a cell in the second half counts there", async () => {
      // Row 30,005 has no e-mail (every 17th row): the fix gives it one.
      const fixed = {
        ...run,
        value_fixes: [
          { fix_id: 'f1', field: 'email', fix: { kind: 'cell', row: 30_005, before: '', after: 'p@example.org' }, fixed_at: 'x' },
        ],
      } as unknown as RunState;
      const before = (await countMappingProblems(blobs, run, mapping))!;
      const whole = (await countMappingProblems(blobs, fixed, mapping))!;
      expect(whole.problems_by_field_and_kind.email.required).toBe(before.problems_by_field_and_kind.email.required - 1);
      expect(await countInRanges(fixed, [20_001])).toEqual(whole);
      // The page around the fixed row, named by the count's rows, is the page a read from the top finds.
      const known = { matching: whole.rows_by_kind.required, rows_checked: whole.rows_checked };
      const offset = Math.floor(30_000 / 17) - 10;
      const query = { field: null, kind: 'required' as const, offset, limit: 20 };
      const rows = pageRows(whole.segments, query)!;
      expect(rows).not.toContain(30_005);
      const fromTop = (await findProblemRows(blobs, fixed, mapping, query))!;
      expect(rows).toEqual(fromTop.rows.map((r) => r.row));
      expect((await findProblemRows(blobs, fixed, mapping, { ...query, known, rows }))!.rows).toEqual(fromTop.rows);
    });
  });
});
