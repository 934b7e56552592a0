import type { LocalBlobStore } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import { rowNumberingOf, type AppliedFix, type RunState } from '@app/domain';
import { countMappingProblems } from './count-problems';
import { distinctFieldValues } from './distinct-values';
import { findDuplicateRows } from './duplicate-values';
import { findProblemRows } from './find-problem-rows';
import { readMappedSource } from './mapped-rows';
import { withTempBlobStore } from './testing/temp-blob-store';
import { storedCsvRun } from './testing/stored-csv-run';
import { writeRunOutput } from './write-output';

/**
 * A row the reviewer left out (a ValuesFixed of kind leave_out, field "") is seen alike by every reader of the records:
 * the preview marks it, the counts, pages and duplicates pass over it, the output leaves it out and counts it excluded.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true, unique: true },
  name: { description: 'n', data_type: 'string', is_required: false },
};
const HEADERS = ['Mail', 'Name'];
const MAPPING = { email: 'Mail', name: 'Name' };
// Row 2 has a bad e-mail, row 3 repeats row 1's, row 4 is a totals line.
const ROWS = [
  ['a@x.org', 'Ann'],
  ['bad', 'Bob'],
  ['a@x.org', 'Cy'],
  ['TOTAL', '3'],
];
const CSV = `Mail,Name\n${ROWS.map((r) => r.join(',')).join('\n')}\n`;

const NUMBERING = rowNumberingOf({ sheet: null, input_has_header: true, rows_above_header: [] });
let fixes = 0;
const rowFix = (kind: 'leave_out' | 'put_back', row: number, numbering = NUMBERING): AppliedFix => ({
  fix_id: `f${++fixes}`,
  field: '',
  fix: { kind, row, numbering },
  fixed_at: '2026-12-05T00:00:00.000Z',
});
const leaveOut = (row: number, numbering?: string) => rowFix('leave_out', row, numbering);
const putBack = (row: number) => rowFix('put_back', row);

describe('rows left out by the reviewer, as every reader sees them', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('rows-left-out-', (b) => (blobs = b));
  let n = 0;
  const stored = (value_fixes: AppliedFix[], output_format: 'json' | 'csv' = 'json'): Promise<RunState> =>
    storedCsvRun(blobs, `r${++n}`, CSV, FIELDS, HEADERS, { value_fixes, mapping_rule: MAPPING, output_format, total_rows: 4 });

  async function previewOf(run: RunState) {
    const source = await readMappedSource(blobs, run, MAPPING, { typed: true });
    const rows = [];
    for await (const batch of source.batches) rows.push(...batch);
    return rows;
  }

  async function outputOf(run: RunState): Promise<{ text: string; written: Awaited<ReturnType<typeof writeRunOutput>> }> {
    const key = `runs/${run.id}/output`;
    const written = await writeRunOutput(blobs, run, key, () => undefined, { duplicates: await findDuplicateRows(blobs, run, MAPPING) });
    let text = '';
    for await (const chunk of await blobs.openRead(key)) text += (chunk as Buffer).toString('utf8');
    return { text, written };
  }

  it('without any, every row is checked and delivered as before', async () => {
    const run = await stored([]);
    const count = (await countMappingProblems(blobs, run, MAPPING, undefined, undefined, await findDuplicateRows(blobs, run, MAPPING)))!;
    // Rows 1 and 3 repeat an e-mail, rows 2 and 4 have none that reads as one.
    expect(count.rows_with_problems).toBe(4);
    const { written } = await outputOf(run);
    expect(written).toEqual({ rows: 4, rowsWithProblems: 4, rowsExcluded: 0 });
  });

  it('the preview keeps the rows in place and marks them, without problems', async () => {
    const rows = await previewOf(await stored([leaveOut(3), leaveOut(4)]));
    expect(rows.map((r) => r.record.name)).toEqual(['Ann', 'Bob', 'Cy', '3']);
    expect(rows.map((r) => r.left_out === true)).toEqual([false, false, true, true]);
    expect(rows[3].problems).toEqual([]);
    expect(rows[1].problems).toEqual([{ field: 'email', problem: 'type' }]);
  });

  it('the count, the pages and the duplicates pass over them: row 1 repeats nothing once row 3 is left out', async () => {
    const run = await stored([leaveOut(3), leaveOut(4)]);
    const duplicates = await findDuplicateRows(blobs, run, MAPPING);
    const count = (await countMappingProblems(blobs, run, MAPPING, undefined, undefined, duplicates))!;
    expect(count.rows_checked).toBe(4);
    expect(count.rows_with_problems).toBe(1);
    expect(count.problems_by_field_and_kind.email.unique).toBe(0);
    const page = (await findProblemRows(blobs, run, MAPPING, { field: null, kind: null, offset: 0, limit: 10 }, undefined, duplicates))!;
    expect(page.rows.map((r) => r.row)).toEqual([2]);
    expect(page.matching).toBe(1);
  });

  it.each(['json', 'csv'] as const)('the %s output leaves them out and counts them excluded', async (format) => {
    const run = await stored([leaveOut(4)], format);
    const { text, written } = await outputOf(run);
    expect(written).toEqual({ rows: 3, rowsWithProblems: 3, rowsExcluded: 1 });
    expect(text).toContain('Cy');
    expect(text).not.toContain('TOTAL');
  });

  it('with problem rows left out at approval too, each row is excluded once', async () => {
    const run = { ...(await stored([leaveOut(3), leaveOut(4)])), problem_rows_choice: 'exclude' as const };
    const { text, written } = await outputOf(run);
    // Row 2 has a problem and is left out at approval; rows 3 and 4 by hand; row 1 repeats nothing now.
    expect(written.rows).toBe(1);
    expect(written.rowsExcluded).toBe(3);
    expect(JSON.parse(text)).toEqual([{ email: 'a@x.org', name: 'Ann' }]);
  });

  it("a picklist's values leave out a row left out", async () => {
    const values = await distinctFieldValues(blobs, await stored([leaveOut(4)]), MAPPING, 'email');
    expect(values!.values.map((v) => v.value)).toEqual(['a@x.org', 'bad']);
  });

  it('a row left out under another numbering (another header row or sheet) is another row: it is delivered', async () => {
    const other = rowNumberingOf({ sheet: null, input_has_header: false, rows_above_header: [] });
    const run = await stored([leaveOut(4, other)]);
    const { written } = await outputOf(run);
    expect(written.rowsExcluded).toBe(0);
    expect((await previewOf(run)).some((r) => r.left_out)).toBe(false);
  });

  it("a picklist field's values are read with the cell edits of their rows, whether or not a row is left out", async () => {
    const edit: AppliedFix = {
      fix_id: 'e1',
      field: 'name',
      fix: { kind: 'cell', row: 2, before: 'Bob', after: 'Robert' },
      fixed_at: '2026-12-05T00:00:00.000Z',
    };
    for (const value_fixes of [[edit], [edit, leaveOut(4)]]) {
      const values = await distinctFieldValues(blobs, await stored(value_fixes), MAPPING, 'name');
      expect(values!.values.map((v) => v.value).sort()).toEqual(
        value_fixes.length === 1 ? ['3', 'Ann', 'Cy', 'Robert'] : ['Ann', 'Cy', 'Robert'],
      );
    }
  });

  it('a row put back is delivered again; left out once more, it is out again (the latest fix of a row decides)', async () => {
    expect((await outputOf(await stored([leaveOut(4), putBack(4)]))).written.rowsExcluded).toBe(0);
    expect((await outputOf(await stored([leaveOut(4), putBack(4), leaveOut(4)]))).written.rowsExcluded).toBe(1);
  });
});
