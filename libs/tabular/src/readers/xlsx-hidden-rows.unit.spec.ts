import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { DEFAULT_TABLE_LIMITS } from './source-problem';
import type { OpenedTable } from './table-reader';
import { openXlsx } from './xlsx-reader';
import { MAX_HIDDEN_ROWS, MAX_HIDDEN_ROW_SPANS } from './xlsx-sheet-rows';

/**
 * Rows a sheet hides (by hand, a filter, a collapsed group) are read like the others, and listed by their number as the
 * rows are read (empty rows not counted), so the review can name them.
 */
async function workbook(build: (ws: ExcelJS.Worksheet) => void): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  build(wb.addWorksheet('Orders'));
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const open = (bytes: Buffer) => openXlsx(Readable.from([bytes]), DEFAULT_TABLE_LIMITS, undefined, { sheet: { choose: true } });

async function rowsOf(table: OpenedTable): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

describe('hidden rows in a workbook', () => {
  it('reads them as records and lists them by their number as read, an empty row between not counted', async () => {
    const bytes = await workbook((ws) => {
      ws.addRow(['Order', 'Total']);
      ws.addRow(['A-1', 10]);
      ws.addRow(['A-2', 20]).hidden = true;
      ws.addRow([]);
      ws.addRow(['A-3', 30]);
      ws.addRow(['Subtotal', 60]).hidden = true;
    });
    const table = await open(bytes);
    expect(await rowsOf(table)).toEqual([
      ['Order', 'Total'],
      ['A-1', '10'],
      ['A-2', '20'],
      ['A-3', '30'],
      ['Subtotal', '60'],
    ]);
    expect(table.hiddenRows?.()).toEqual([3, 5]);
    expect(table.hiddenRowsTotal?.()).toBe(2);
    expect(table.hiddenRowSpans?.()).toEqual([
      [3, 3],
      [5, 5],
    ]);
  });

  it('lists none for a sheet that hides none, and no empty hidden row', async () => {
    const plain = await open(await workbook((ws) => ws.addRows([['a'], ['b']])));
    await rowsOf(plain);
    expect(plain.hiddenRows?.()).toEqual([]);
    expect(plain.hiddenRowsTotal?.()).toBe(0);
    const emptyHidden = await open(
      await workbook((ws) => {
        ws.addRows([['a'], ['b']]);
        const row = ws.getRow(5);
        row.hidden = true;
        row.height = 20;
      }),
    );
    await rowsOf(emptyHidden);
    expect(emptyHidden.hiddenRows?.()).toEqual([]);
    expect(emptyHidden.hiddenRowsTotal?.()).toBe(0);
  });

  it(`lists at most ${MAX_HIDDEN_ROWS}`, async () => {
    const table = await open(
      await workbook((ws) => {
        for (let i = 0; i < MAX_HIDDEN_ROWS + 5; i++) ws.addRow([`r${i}`]).hidden = true;
      }),
    );
    expect(await rowsOf(table)).toHaveLength(MAX_HIDDEN_ROWS + 5);
    expect(table.hiddenRows?.()).toHaveLength(MAX_HIDDEN_ROWS);
    expect(table.hiddenRows?.().at(-1)).toBe(MAX_HIDDEN_ROWS);
    expect(table.hiddenRowsTotal?.()).toBe(MAX_HIDDEN_ROWS + 5);
  });

  it(`counts every hidden row past the ${MAX_HIDDEN_ROWS} it lists, shown rows and empty hidden rows between them not counted`, async () => {
    const table = await open(
      await workbook((ws) => {
        ws.addRow(['Order', 'Total']);
        // 1,300 records, every fifth one shown: 1,040 hidden, the last 40 past the list.
        for (let i = 1; i <= 1300; i++) ws.addRow([`A-${i}`, i]).hidden = i % 5 !== 0;
        // An empty hidden row (no record) at the end.
        const empty = ws.getRow(1400);
        empty.hidden = true;
        empty.height = 20;
      }),
    );
    expect(await rowsOf(table)).toHaveLength(1301);
    const listed = table.hiddenRows?.() ?? [];
    expect(listed).toHaveLength(MAX_HIDDEN_ROWS);
    // Row 2 is record A-1; the 1,000th hidden record is A-1249 (four hidden in each five; A-1250 is shown), row 1,250.
    expect([listed[0], listed.at(-1)]).toEqual([2, 1250]);
    expect(table.hiddenRowsTotal?.()).toBe(1040);
    // All of them as spans: each run of four hidden records between two shown ones, 260 spans of 1,040 rows.
    const spans = table.hiddenRowSpans?.() ?? [];
    expect(spans).toHaveLength(260);
    expect(spans.slice(0, 2)).toEqual([
      [2, 5],
      [7, 10],
    ]);
    expect(spans.at(-1)).toEqual([1297, 1300]);
    expect(spans.reduce((n, [first, last]) => n + last - first + 1, 0)).toBe(1040);
  });

  it('keeps a filtered sheet as a few spans however many rows it hides', async () => {
    const table = await open(
      await workbook((ws) => {
        ws.addRow(['Order', 'Total']);
        for (let i = 1; i <= 5000; i++) ws.addRow([`A-${i}`, i]).hidden = i <= 2000 || i > 2010;
        ws.getRow(6000).hidden = true; // hidden and empty: no row read, no span
      }),
    );
    await rowsOf(table);
    expect(table.hiddenRowsTotal?.()).toBe(4990);
    expect(table.hiddenRowSpans?.()).toEqual([
      [2, 2001],
      [2012, 5001],
    ]);
  });

  it(`keeps no spans for a sheet that hides its rows in more than ${MAX_HIDDEN_ROW_SPANS} places`, async () => {
    const table = await open(
      await workbook((ws) => {
        for (let i = 0; i < 2 * (MAX_HIDDEN_ROW_SPANS + 1); i++) ws.addRow([`r${i}`]).hidden = i % 2 === 0;
      }),
    );
    await rowsOf(table);
    expect(table.hiddenRowsTotal?.()).toBe(MAX_HIDDEN_ROW_SPANS + 1);
    expect(table.hiddenRowSpans?.()).toBeNull();
  }, 30_000);
});
