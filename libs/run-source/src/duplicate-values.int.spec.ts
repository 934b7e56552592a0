import fc from 'fast-check';
import Papa from 'papaparse';
import type { LocalBlobStore } from '@app/blob-storage';
import { withTempBlobStore } from './testing/temp-blob-store';
import type { FieldDefinition } from '@app/contracts';
import { rowIndexKeyOf, type DuplicateRows, type RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { countMappingProblems, joinProblemTallies } from './count-problems';
import { findDuplicateRows } from './duplicate-values';
import { firstDuplicatesPass, type DuplicatesOptions } from './duplicates-first-pass';
import { findProblemRows } from './find-problem-rows';
import { cutAfter, newRangeEnd } from './range-end';
import { inspectStructuredFile } from './inspect-structured-file';
import { writeRunOutput } from './write-output';
import { storedCsvRun } from './testing/stored-csv-run';

/**
 * The duplicates pass against the plain way (every key counted in a Map), on files with
 * repeats far apart, with the digest prefixes cut short so that different values share them
 * (the exact passes then decide); and its answer used by the count, the pages and the output.
 */
const FIELDS: Record<string, FieldDefinition> = {
  code: { description: 'c', data_type: 'string', is_required: false, unique: true },
  amount: { description: 'a', data_type: 'number', is_required: false, unique: true },
  first: { description: 'f', data_type: 'string', is_required: false },
  last: { description: 'l', data_type: 'string', is_required: false },
};
const UNIQUE_WITH = [['first', 'last']];
const HEADERS = ['Code', 'Amount', 'First', 'Last'];
const MAPPING = { code: 'Code', amount: 'Amount', first: 'First', last: 'Last' };
type Row = [string, string, string, string];

const rowsOf = (bits: Uint8Array | undefined, count: number): number[] =>
  Array.from({ length: count }, (_, i) => i + 1).filter((n) => bits !== undefined && (bits[n >> 3] & (1 << (n & 7))) !== 0);

/** The plain way: each key's rows in a Map; rows of keys seen more than once. */
function expectedRows(data: Row[], keyOf: (r: Row) => string | null): number[] {
  const rows = new Map<string, number[]>();
  data.forEach((r, i) => {
    const key = keyOf(r);
    if (key !== null) rows.set(key, [...(rows.get(key) ?? []), i + 1]);
  });
  return [...rows.values()]
    .filter((r) => r.length > 1)
    .flat()
    .sort((a, b) => a - b);
}
const text = (v: string): string | null => (v.trim() === '' ? null : v.trim());
const number = (v: string): string | null =>
  v.trim() === '' ? null : Number.isFinite(Number(v.trim())) ? String(Number(v.trim())) : v.trim();
const pair = (r: Row): string | null => (text(r[2]) === null && text(r[3]) === null ? null : JSON.stringify([text(r[2]), text(r[3])]));

/** The duplicates pass's answer is the plain way's, field by field. */
function expectThePlainWay(found: DuplicateRows | null, data: Row[]): void {
  expect(found).not.toBeNull();
  const pairs = expectedRows(data, pair);
  expect(rowsOf(found?.code, data.length)).toEqual(expectedRows(data, (r) => text(r[0])));
  expect(rowsOf(found?.amount, data.length)).toEqual(expectedRows(data, (r) => number(r[1])));
  expect(rowsOf(found?.first, data.length)).toEqual(pairs);
  expect(rowsOf(found?.last, data.length)).toEqual(pairs);
}

describe('duplicates pass', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('duplicates-', (b) => (blobs = b));

  let n = 0;
  /** A run of `schema` over a CSV file stored with `rows` under `headers`, each field mapped to a header. */
  async function storedRun(
    headers: string[],
    rows: string[][],
    schema: RunState['schema'],
    mapping: Record<string, string>,
    output_format: 'json' | 'csv' = 'json',
  ): Promise<RunState> {
    return storedCsvRun(blobs, `d${++n}`, Papa.unparse([headers, ...rows], { newline: '\n' }), schema.fields, headers, {
      schema,
      output_format,
      mapping_rule: mapping,
    });
  }
  const stored = (data: Row[], output_format: 'json' | 'csv' = 'json') =>
    storedRun(HEADERS, data, { fields: FIELDS, unique_with: UNIQUE_WITH } as RunState['schema'], MAPPING, output_format);

  /** The run as ingestion leaves it: its rows counted and a row index stored beside the file. */
  async function ingested(run: RunState): Promise<RunState> {
    const outcome = await inspectStructuredFile(blobs, { ...run, filename: 'input.csv' }, DEFAULT_TABLE_LIMITS, () => undefined);
    if (!('parsed' in outcome)) throw new Error(`not parsed: ${JSON.stringify(outcome)}`);
    return { ...run, ...outcome.parsed };
  }

  it("finds repeats in fields named after an object's own properties (constructor, toString), in the pass, the count and two halves joined", async () => {
    const fields: Record<string, FieldDefinition> = {
      constructor: { description: 'c', data_type: 'integer', is_required: false, unique: true },
      toString: { description: 't', data_type: 'string', is_required: false, unique: true },
    };
    const run = await storedRun(
      ['constructor', 'toString'],
      [
        ['1', 'a'],
        ['1', 'b'],
        ['2', 'b'],
        ['3', 'c'],
      ],
      { fields } as RunState['schema'],
      { constructor: 'constructor', toString: 'toString' },
    );
    const mapping = run.mapping_rule!;
    const found = (await findDuplicateRows(blobs, run, mapping))!;
    expect(Object.hasOwn(found, 'constructor') && rowsOf(found['constructor' as string], 4)).toEqual([1, 2]);
    expect(Object.hasOwn(found, 'toString') && rowsOf(found['toString' as string], 4)).toEqual([2, 3]);
    const whole = (await countMappingProblems(blobs, run, mapping, undefined, undefined, found))!;
    expect(whole.problems_by_field).toEqual({ constructor: 2, toString: 2 });
    // Two halves joined, as two threads count them.
    const halves = await Promise.all(
      [
        { fromRow: 1, toRow: 2 },
        { fromRow: 3, toRow: null },
      ].map(async (range) => ({ range, tally: (await countMappingProblems(blobs, run, mapping, undefined, undefined, found, range))! })),
    );
    const joined = joinProblemTallies(halves);
    expect(joined.problems_by_field).toEqual({ constructor: 2, toString: 2 });
    expect(joined.problems_by_field_and_kind['constructor' as string].unique).toBe(2);
    expect(joined.problems_by_field_and_kind['toString' as string].unique).toBe(2);
  });

  const value = fc.constantFrom('', ' ', 'a', 'b', 'A', 'a ', '1', '1.0', '01', '2', 'x,y', '"q"', 'ü');
  // The reader skips a line of only delimiters and spaces, as a blank line: such rows are no data rows.
  const row = fc.tuple(value, value, value, value).filter((r) => r.some((v) => v.trim() !== ''));

  it('marks every occurrence of a repeated value, and only those, whatever the digest prefixes share and however many keys are kept whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 60 }),
        fc.constantFrom(1, 2, 6),
        // 0: every key digested (as before keys were kept); a few: kept and digested keys in one file; the default.
        fc.constantFrom(0, 1, 3, 8, undefined),
        async (data, prefixBytes, exactKeys) => {
          const run = await stored(data);
          expectThePlainWay(await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, { prefixBytes, exactKeys }), data);
        },
      ),
      { numRuns: 150 },
    );
  });

  /** How many times a duplicates pass read the file: its progress starts again at each read. */
  async function readsOf(run: RunState, exactKeys?: number): Promise<{ reads: number; found: DuplicateRows }> {
    const heard: number[] = [];
    const found = (await findDuplicateRows(blobs, run, MAPPING, undefined, (rows) => heard.push(rows), { exactKeys }))!;
    return { reads: heard.filter((rows, i) => i === 0 || rows < heard[i - 1]).length, found };
  }

  it('reads the file once when its repeated values are among the keys kept whole, and again for repeated digest prefixes', async () => {
    // A few names repeated all over the file, as a column of categories: every key is kept whole.
    const data: Row[] = Array.from({ length: 5000 }, (_, i) => [`C${i}`, String(i), `F${i % 7}`, 'L']);
    const once = await readsOf(await stored(data));
    expect(once.reads).toBe(1);
    expect(rowsOf(once.found.first, data.length)).toHaveLength(data.length);
    expect(rowsOf(once.found.code, data.length)).toEqual([]);
    // With no key kept whole, the repeated names' digests are compared in a second read: the same answer.
    const twice = await readsOf(await stored(data), 0);
    expect(twice.reads).toBe(2);
    expect(twice.found).toEqual(once.found);
  });

  it('keeps number keys themselves, exactly: an id column is read once, with no key kept whole and no digest', async () => {
    const data: Row[] = Array.from({ length: 5000 }, (_, i) => [String(i), `${i}.0`, '', '']);
    data[4999] = ['3', '4', '', '']; // a text "3" in the code column and the number 4 (from "3.0" and "4") in the amounts
    const { reads, found } = await readsOf(await stored(data), 0);
    expect(reads).toBe(1);
    expect(rowsOf(found.code, data.length)).toEqual([4, 5000]);
    expect(rowsOf(found.amount, data.length)).toEqual([5, 5000]);
    // "03" and "3" are different texts: one is a number as JavaScript writes it, the other is kept as text.
    data[4999] = ['03', '', '', ''];
    expect(rowsOf((await readsOf(await stored(data), 0)).found.code, data.length)).toEqual([]);
  });

  it('finds repeats far apart in a long file, with one bit per row and field', async () => {
    const data: Row[] = Array.from({ length: 20_000 }, (_, i) => [`C${i}`, String(i), `F${i}`, 'L']);
    data[19_998] = ['C3', '19998', 'F17', 'L']; // code of row 4, name of row 18
    const run = await stored(data);
    // Every key kept whole (60,000 keys), and past the budget after the first 1,000.
    for (const exactKeys of [undefined, 1000]) {
      const found = (await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, { exactKeys }))!;
      expect(rowsOf(found.code, data.length)).toEqual([4, 19_999]);
      expect(rowsOf(found.first, data.length)).toEqual([18, 19_999]);
      expect(rowsOf(found.amount, data.length)).toEqual([]);
      expect(found.code.length).toBe(Math.floor(data.length / 8) + 1);
    }
  });

  it('tells different values apart when their prefixes are the same (more values than one-byte prefixes)', async () => {
    const data: Row[] = Array.from({ length: 300 }, (_, i) => [`K${i}`, '', '', '']);
    data[299] = ['K7', '', '', ''];
    for (const exactKeys of [0, 100]) {
      const found = (await findDuplicateRows(blobs, await stored(data), MAPPING, undefined, undefined, { prefixBytes: 1, exactKeys }))!;
      expect(rowsOf(found.code, data.length)).toEqual([8, 300]);
    }
  });

  it('answers nothing to find when the schema asks for no unique values', async () => {
    const run = await stored([['a', '1', 'f', 'l']]);
    const plain = { ...run, schema: { ...run.schema, fields: { code: { ...FIELDS.code, unique: false } }, unique_with: [] } };
    expect(await findDuplicateRows(blobs, plain, MAPPING)).toEqual({});
  });

  describe('its first pass read in ranges (two threads, each over half the file)', () => {
    /** The answer from first passes over the ranges that `cuts` (row numbers, ascending) start. */
    async function foundInRanges(run: RunState, rows: number, cuts: number[], options: DuplicatesOptions): Promise<DuplicateRows> {
      const starts = [1, ...cuts];
      const ranges = starts.map((fromRow, i) => ({ fromRow, toRow: i + 1 < starts.length ? starts[i + 1] - 1 : null }));
      const firstPasses = await Promise.all(
        ranges.map(async (range) => (await firstDuplicatesPass(blobs, run, MAPPING, range, undefined, undefined, options))!),
      );
      expect(firstPasses.reduce((n, p) => n + p.rows, 0)).toBe(rows);
      return (await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, options, firstPasses))!;
    }

    it('finds what one pass over the whole file finds, wherever the file is cut and whatever each range keeps whole', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(row, { minLength: 1, maxLength: 60 }),
          fc.array(fc.nat(), { maxLength: 3 }),
          fc.constantFrom(1, 2, 6),
          // Budgets that run out in one range and not the other, as well as none and the default: of keys, and of characters.
          fc.constantFrom(0, 1, 3, 8, undefined),
          fc.constantFrom(4, 12, 30, undefined),
          async (data, cutSeeds, prefixBytes, exactKeys, exactKeyCharacters) => {
            const cuts = [...new Set(cutSeeds.map((c) => 2 + (c % data.length)))].filter((c) => c <= data.length).sort((a, b) => a - b);
            const run = await stored(data);
            expectThePlainWay(await foundInRanges(run, data.length, cuts, { prefixBytes, exactKeys, exactKeyCharacters }), data);
          },
        ),
        { numRuns: 150 },
      );
    });

    it("frees the first passes' numbers once it has answered: the thread goes on to the output without them", async () => {
      const data: Row[] = Array.from({ length: 2000 }, (_, i) => [`C${i % 1500}`, String(i % 1700), `F${i}`, 'L']);
      const run = await stored(data);
      const ranges = [
        { fromRow: 1, toRow: 1000 },
        { fromRow: 1001, toRow: null },
      ];
      const firstPasses = await Promise.all(ranges.map(async (range) => (await firstDuplicatesPass(blobs, run, MAPPING, range))!));
      const held = firstPasses.flatMap((p) => p.sets.flatMap((set) => [set.numbers, set.prefixes])).filter((a) => a !== null);
      expect(held.length).toBeGreaterThan(0);
      expect(held.every((a) => a.length > 0)).toBe(true);
      const found = (await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, {}, firstPasses))!;
      expect(held.every((a) => a.buffer.byteLength === 0)).toBe(true);
      expect(found).toEqual(await findDuplicateRows(blobs, run, MAPPING));
      expect(rowsOf(found.code, data.length)).toEqual([
        ...Array.from({ length: 500 }, (_, i) => i + 1),
        ...Array.from({ length: 500 }, (_, i) => i + 1501),
      ]);
    });

    it('meets a value kept whole by one half and digested by the other, whose budget ran out before it', async () => {
      // Each half's budget of 1,000 keys runs out after its 500th row (a code and a name each). Row
      // 1001 repeats C3, kept whole by both halves, and F999, which the first half digested and the
      // second kept; C1500 is kept whole at row 1002 but digested in the first half's numbering.
      const data: Row[] = Array.from({ length: 2000 }, (_, i) => [`C${i}`, '', `F${i}`, 'L']);
      data[1000] = ['C3', '', 'F999', 'L'];
      data[1001] = ['C1500', '', 'F1', 'L'];
      const run = await stored(data);
      const found = await foundInRanges(run, data.length, [1001], { exactKeys: 1000 });
      expect(rowsOf(found.code, data.length)).toEqual([4, 1001, 1002, 1501]);
      expect(rowsOf(found.first, data.length)).toEqual([2, 1000, 1001, 1002]);
      expect(found).toEqual(await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, { exactKeys: 1000 }));
    });

    it("checks each row under its own number: a reviewer's fix of a cell in the second half makes the duplicate there", async () => {
      const data: Row[] = Array.from({ length: 2000 }, (_, i) => [`C${i}`, '', `F${i}`, 'L']);
      const fixed = {
        ...(await stored(data)),
        value_fixes: [{ fix_id: 'f1', field: 'code', fix: { kind: 'cell', row: 1500, before: 'C1499', after: 'C3' }, fixed_at: 'x' }],
      } as unknown as RunState;
      const found = await foundInRanges(fixed, data.length, [1001], {});
      expect(rowsOf(found.code, data.length)).toEqual([4, 1500]);
    });

    it('reads each half from the row index entry before it in a long file, with the same answer as one pass', async () => {
      // A line break inside a quoted value every 7th row: row starts are not line starts.
      const data: Row[] = Array.from({ length: 20_000 }, (_, i) => [`C${i}`, String(i), `F${i % 3000}`, i % 7 === 0 ? 'L\nM' : 'L']);
      data[19_998] = ['C3', '7', 'F17', 'L'];
      const run = await ingested(await stored(data));
      expect(run.total_rows).toBe(data.length);
      expect(await blobs.stat(rowIndexKeyOf(run.rows_key))).not.toBeNull();
      for (const exactKeys of [undefined, 1000]) {
        const found = await foundInRanges(run, data.length, [10_001], { exactKeys });
        expect(rowsOf(found.code, data.length)).toEqual([4, 19_999]);
        expect(rowsOf(found.amount, data.length)).toEqual([8, 19_999]);
        expect(found).toEqual(await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, { exactKeys }));
      }
    });
    it('answers the same when a range is cut short while read and its last rows are read as a third range, keeping only its rows', async () => {
      // The first half is cut after its first batch; its rest becomes a range of its own. The cut
      // half's numbers must not keep the buffer made for the whole half: that buffer moves to the
      // thread that goes on, beside the rest's own numbers.
      const data: Row[] = Array.from({ length: 20_000 }, (_, i) => [`C${i}`, String(i), `F${i % 3000}`, 'L']);
      data[15_000] = ['C3', '7', 'F17', 'L'];
      const run = await ingested(await stored(data));
      const end = newRangeEnd(1, 10_000);
      let cut: number | null = null;
      const first = (await firstDuplicatesPass(blobs, run, MAPPING, { fromRow: 1, toRow: 10_000, end }, undefined, () => {
        cut ??= cutAfter(end, ({ claimed }) => claimed);
      }))!;
      expect(cut).toBeGreaterThan(0);
      expect(cut).toBeLessThan(2_000);
      expect(first.rows).toBe(cut);
      const amounts = first.sets.find((set) => set.numbers !== null)!.numbers!;
      expect(amounts.length).toBe(cut);
      expect(amounts.buffer.byteLength).toBe(cut! * Float64Array.BYTES_PER_ELEMENT);
      const rest = await Promise.all([
        firstDuplicatesPass(blobs, run, MAPPING, { fromRow: cut! + 1, toRow: 10_000 }),
        firstDuplicatesPass(blobs, run, MAPPING, { fromRow: 10_001, toRow: null }),
      ]);
      const found = (await findDuplicateRows(blobs, run, MAPPING, undefined, undefined, {}, [first, ...rest.map((p) => p!)]))!;
      expect(rowsOf(found.code, data.length)).toEqual([4, 15_001]);
      expect(rowsOf(found.amount, data.length)).toEqual([8, 15_001]);
      expect(found).toEqual(await findDuplicateRows(blobs, run, MAPPING));
    });
  });

  describe('its answer in the count, the pages and the output', () => {
    const data: Row[] = [
      ['A1', '10', 'Ada', 'Lovelace'],
      ['A2', '20', 'Alan', 'Turing'],
      ['A1', '30', 'Grace', 'Hopper'],
      ['A4', '20.0', 'Ada', 'Lovelace'],
      ['A5', '50', 'Ada', 'Byron'],
    ];
    let run: RunState;
    let duplicates: DuplicateRows;
    beforeAll(async () => {
      run = await stored(data);
      duplicates = (await findDuplicateRows(blobs, run, MAPPING))!;
    });

    it('counts each repeated cell as a unique problem', async () => {
      const tally = (await countMappingProblems(blobs, run, MAPPING, undefined, undefined, duplicates))!;
      expect(tally.rows_with_problems).toBe(4);
      expect(tally.rows_by_kind.unique).toBe(4);
      expect(tally.problems_by_field_and_kind.code.unique).toBe(2);
      expect(tally.problems_by_field_and_kind.amount.unique).toBe(2);
      expect(tally.problems_by_field_and_kind.first.unique).toBe(2);
      expect(tally.problems_by_field_and_kind.last.unique).toBe(2);
      // Without the pass's answer nothing is a duplicate: the answer is what decides.
      expect((await countMappingProblems(blobs, run, MAPPING))!.rows_with_problems).toBe(0);
    });

    it('lists the same rows from any page start: a row does not depend on the rows before it', async () => {
      const query = { field: 'amount', kind: 'unique' as const, limit: 10 };
      const all = (await findProblemRows(blobs, run, MAPPING, { ...query, offset: 0 }, undefined, duplicates))!;
      expect(all.rows.map((r) => r.row)).toEqual([2, 4]);
      expect(all.rows[1].cells.amount).toEqual({ value: '20', problem: 'unique' });
      const second = (await findProblemRows(blobs, run, MAPPING, { ...query, offset: 1 }, undefined, duplicates))!;
      expect(second.rows.map((r) => r.row)).toEqual([4]);
    });

    it('writes every row with its values: problems are reported, never dropped', async () => {
      for (const format of ['json', 'csv'] as const) {
        const r = { ...run, output_format: format };
        const key = `runs/${r.id}/output.${format}`;
        const written = await writeRunOutput(blobs, r, key, () => undefined, { duplicates });
        expect(written).toEqual({ rows: 5, rowsWithProblems: 4, rowsExcluded: 0 });
        const chunks: Buffer[] = [];
        for await (const chunk of await blobs.openRead(key)) chunks.push(chunk as Buffer);
        const out = Buffer.concat(chunks).toString('utf8');
        if (format === 'json') expect((JSON.parse(out) as { amount: number }[]).map((o) => o.amount)).toEqual([10, 20, 30, 20, 50]);
        else expect(out).toContain('A4,20.0,Ada,Lovelace');
      }
      const excluded = await writeRunOutput(blobs, { ...run, problem_rows_choice: 'exclude' }, `runs/${run.id}/x.json`, () => undefined, {
        duplicates,
      });
      expect(excluded).toEqual({ rows: 1, rowsWithProblems: 4, rowsExcluded: 4 });
    });
  });
});
