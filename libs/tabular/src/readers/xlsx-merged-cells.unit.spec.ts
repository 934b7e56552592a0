import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { DEFAULT_TABLE_LIMITS } from './source-problem';
import type { OpenedTable } from './table-reader';
import { MAX_MERGED_RANGES, MergedFill, mergedColumnOf } from './xlsx-merged-cells';
import { openXlsx, type XlsxOpenOptions } from './xlsx-reader';

/**
 * Merged cells: a file's first read lists the sheet's merges over rows, and a later read given them fills each row a
 * merge covers with its top cell's value, in the merge's first column, where the row's cell is empty.
 */

/** A grouped report: the region merged down its customers (B2:B4, B5:B6), a note across two columns (D2:E2). */
async function groupedReport(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Report');
  ws.addRow(['Customer', 'Region', 'Total', 'Note', '']);
  ws.addRow(['Ann', 'North', 10, 'first order', '']);
  ws.addRow(['Bob', null, 20]);
  ws.addRow(['Cid', null, 30]);
  ws.addRow(['Dee', 'South', 40]);
  ws.addRow(['Eve', null, 50]);
  ws.addRow([]);
  ws.addRow(['Fay', 'West', 60]);
  ws.mergeCells('B2:B4');
  ws.mergeCells('B5:B6');
  ws.mergeCells('D2:E2');
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const open = (bytes: Buffer, options: XlsxOpenOptions = {}) =>
  openXlsx(Readable.from([bytes]), DEFAULT_TABLE_LIMITS, undefined, { sheet: { choose: true }, ...options });

async function rowsOf(table: OpenedTable): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

describe('merged cells in a workbook', () => {
  it('are listed by the first read, which leaves the rows as stored', async () => {
    const table = await open(await groupedReport());
    const rows = await rowsOf(table);
    expect(rows.map((r) => r[1])).toEqual(['Region', 'North', '', '', 'South', '', 'West']);
    // The note merged across one row is no merge over rows: nothing to fill.
    expect([...(table.mergedCells?.() ?? [])].sort()).toEqual(['B2:B4', 'B5:B6']);
  });

  it("fill each row a merge covers with its top cell's value in a later read, and nothing else", async () => {
    const bytes = await groupedReport();
    const first = await open(bytes);
    const stored = await rowsOf(first);
    const later = await rowsOf(
      await open(bytes, { sheet: 'Report', packageChecked: true, mergedCells: { refs: first.mergedCells?.() ?? [], firstDataRow: 2 } }),
    );
    expect(later.map((r) => r[1])).toEqual(['Region', 'North', 'North', 'North', 'South', 'South', 'West']);
    // The same rows in the same order, each the same but for the merged cells: the blank row stays out.
    expect(later).toHaveLength(stored.length);
    expect(later.map((r) => [r[0], r[2]])).toEqual(stored.map((r) => [r[0], r[2]]));
    expect(later[1][3]).toBe('first order');
  });

  it('reads merge references as Excel writes them, and only merges over rows within the columns read', () => {
    expect(mergedColumnOf('$B$2:$C$9', 100)).toEqual({ col: 1, top: 2, bottom: 9 });
    expect(mergedColumnOf('AA10:AA12', 100)).toEqual({ col: 26, top: 10, bottom: 12 });
    expect(mergedColumnOf('A1:F1', 100)).toBeNull();
    expect(mergedColumnOf('Z5:Z9', 10)).toBeNull();
    for (const junk of ['A5', 'A9:A5', 'A5:', ':A9', 'AAAA1:AAAA3', '5:9', 'A5:A9:A12', '']) expect(mergedColumnOf(junk, 100)).toBeNull();
  });

  it('gives a cell of its own, a row the sheet does not list, and a blank top cell nothing', () => {
    const fill = new MergedFill(['A1:A4', 'C2:C3', 'B5:B6'], 10);
    const rows: [number, string[]][] = [
      [1, ['top', 'x']],
      [2, ['', 'y', 'mid']],
      [3, ['own', 'z']],
      [4, ['', 'w']],
      // Row 5 is not listed: B5:B6 has no top cell to give.
      [6, ['v']],
    ];
    for (const [n, cells] of rows) fill.row(n, cells, true, true);
    expect(rows.map(([, cells]) => cells)).toEqual([['top', 'x'], ['top', 'y', 'mid'], ['own', 'z', 'mid'], ['top', 'w'], ['v']]);
  });

  it("gives a title's or a header's merge to no data row, and a blank cell under a merge the merge's value", () => {
    // A1:A4 a title down the side, B2:B3 a header merged over two rows, C3:C5 a value of the first data row (row 3).
    const fill = new MergedFill(['A1:A4', 'B2:B3', 'C3:C5'], 10);
    const rows: [number, string[], boolean][] = [
      [1, ['Report'], false],
      [2, ['', 'Name', 'Team'], false],
      [3, ['', 'ann', 'Red'], true],
      [4, ['', 'bob', '  '], true],
      [5, ['x', 'cid'], true],
    ];
    for (const [n, cells, isData] of rows) fill.row(n, cells, true, isData);
    expect(rows.map(([, cells]) => cells)).toEqual([
      ['Report'],
      ['', 'Name', 'Team'],
      ['', 'ann', 'Red'],
      ['', 'bob', 'Red'],
      ['x', 'cid', 'Red'],
    ]);
  });

  it('costs a row one merge per column however often a sheet lists it, and gives nothing from a blank top row', () => {
    const fill = new MergedFill([...Array.from({ length: 5000 }, () => 'A1:A3'), 'B1:B3'], 10);
    const rows: [number, string[], boolean][] = [
      [1, ['k', '#N/A'], true],
      [2, ['', ''], true],
      [3, ['', 'own'], true],
    ];
    // Row 1's B is an error value alone: the read skips such a row as blank, and it gives nothing.
    fill.row(1, rows[0][1], true, true);
    fill.row(2, rows[1][1], true, true);
    fill.row(3, rows[2][1], true, true);
    expect(rows.map(([, cells]) => cells)).toEqual([
      ['k', '#N/A'],
      ['k', '#N/A'],
      ['k', 'own'],
    ]);
    const blankTop = new MergedFill(['A1:A2'], 10);
    const under = ['', 'v'];
    blankTop.row(1, ['#N/A'], false, true);
    blankTop.row(2, under, true, true);
    expect(under).toEqual(['', 'v']);
  });

  it(`lists at most ${MAX_MERGED_RANGES} merges of a sheet merged cell by cell: the rest stay as stored`, async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Pairs');
    const pairs = MAX_MERGED_RANGES + 5;
    for (let i = 0; i < pairs; i++) ws.addRow([`k${i}`, `v${i}`]).commit();
    for (let i = 0; i < pairs; i += 2) ws.mergeCells(`B${i + 1}:B${i + 2}`);
    const table = await open(Buffer.from(await wb.xlsx.writeBuffer()));
    await rowsOf(table);
    expect(table.mergedCells?.()).toHaveLength(Math.min(MAX_MERGED_RANGES, Math.ceil(pairs / 2)));
  });
});
