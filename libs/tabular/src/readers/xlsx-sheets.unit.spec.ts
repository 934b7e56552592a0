import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { DEFAULT_TABLE_LIMITS, SourceProblem, type TableLimits } from './source-problem';
import type { OpenedTable } from './table-reader';
import { repack } from './testing/xlsx-parts';
import { openXlsx, type XlsxOpenOptions } from './xlsx-reader';

/**
 * Which worksheet the XLSX reader reads: the list of sheets (name, state, data), the
 * sheet ingestion opens on, a sheet chosen by name, and what older runs read.
 */

type Sheet = { name: string; state?: 'visible' | 'hidden' | 'veryHidden'; rows: unknown[][] };

async function workbookOf(sheets: Sheet[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const ws = wb.addWorksheet(sheet.name, { state: sheet.state ?? 'visible' });
    for (const row of sheet.rows) ws.addRow(row);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const open = (bytes: Buffer, options: XlsxOpenOptions, limits: Partial<TableLimits> = {}) =>
  openXlsx(Readable.from([bytes]), { ...DEFAULT_TABLE_LIMITS, ...limits }, undefined, options);

async function rowsOf(table: OpenedTable): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of table.batches) rows.push(...batch);
  return rows;
}

/** The workbook of the issue: the first sheet hidden, the data on the second, other headers on the third. */
const threeSheets = (first: Sheet = { name: 'Notes', state: 'hidden', rows: [['note'], ['draft, do not import']] }) =>
  workbookOf([
    first,
    {
      name: 'People',
      rows: [
        ['Email', 'Name'],
        ['ada@example.com', 'Ada'],
        ['alan@example.com', 'Alan'],
      ],
    },
    {
      name: 'Orders',
      rows: [
        ['Order', 'Email', 'Total'],
        ['A-1', 'ada@example.com', 12.5],
      ],
    },
  ]);

describe('choosing the sheet (ingestion)', () => {
  it('lists every sheet with its state and data, and opens on the first visible sheet with data', async () => {
    const table = await open(await threeSheets(), { sheet: { choose: true } });
    expect(table.sheets).toEqual([
      { name: 'Notes', state: 'hidden', has_data: true },
      { name: 'People', state: 'visible', has_data: true },
      { name: 'Orders', state: 'visible', has_data: true },
    ]);
    expect(table.sheet).toBe('People');
    expect(await rowsOf(table)).toEqual([
      ['Email', 'Name'],
      ['ada@example.com', 'Ada'],
      ['alan@example.com', 'Alan'],
    ]);
  });

  it('skips a visible first sheet of error values only, as one without data (it is no table; runs ingested before error values were kept read past it)', async () => {
    const table = await open(
      await threeSheets({ name: 'Lookups', rows: [[{ error: '#N/A' }, { error: '#REF!' }], [{ error: '#DIV/0!' }]] }),
      {
        sheet: { choose: true },
      },
    );
    expect(table.sheets![0]).toEqual({ name: 'Lookups', state: 'visible', has_data: false });
    expect(table.sheet).toBe('People');
    const older = await open(await threeSheets({ name: 'Lookups', rows: [[{ error: '#N/A' }]] }), {});
    expect((await rowsOf(older))[0]).toEqual(['Email', 'Name']);
  });

  it('skips a visible first sheet without data (blank cells only)', async () => {
    const table = await open(await threeSheets({ name: 'Cover', rows: [['   ', ''], [null]] }), { sheet: { choose: true } });
    expect(table.sheets![0]).toEqual({ name: 'Cover', state: 'visible', has_data: false });
    expect(table.sheet).toBe('People');
    expect((await rowsOf(table))[0]).toEqual(['Email', 'Name']);
  });

  it('skips a visible first sheet of one row (a cover or a title) for the first with a row of data under its header', async () => {
    const table = await open(await threeSheets({ name: 'Cover', rows: [['Customer export, November 2026']] }), { sheet: { choose: true } });
    expect(table.sheets![0]).toEqual({ name: 'Cover', state: 'visible', has_data: true });
    expect(table.sheet).toBe('People');
    // A header with no rows under it on every visible sheet: the first visible one with a row still opens (not a hidden one).
    const headersOnly = await workbookOf([
      { name: 'Notes', state: 'hidden', rows: [['note'], ['draft']] },
      { name: 'Template', rows: [['Email', 'Name']] },
      { name: 'Other', rows: [['Order']] },
    ]);
    const opened = await open(headersOnly, { sheet: { choose: true } });
    expect(opened.sheet).toBe('Template');
    expect(await rowsOf(opened)).toEqual([['Email', 'Name']]);
  });

  it("skips a visible cover (up to six rows of one value each) for the first sheet with a table's row of two values", async () => {
    const cover = { name: 'Cover', rows: [['Order report Q1 2024'], ['Confidential'], ['Prepared by Finance']] };
    const table = await open(await threeSheets(cover), { sheet: { choose: true } });
    expect(table.sheets![0]).toEqual({ name: 'Cover', state: 'visible', has_data: true });
    expect(table.sheet).toBe('People');
    // A one-column list is no cover once it has more rows than a cover's; nor is a sheet with a row of two values.
    const list = { name: 'List', rows: Array.from({ length: 7 }, (_, i) => [`u${i}@x.org`]) };
    expect((await open(await threeSheets(list), { sheet: { choose: true } })).sheet).toBe('List');
    const few = { name: 'Few', rows: [['Email'], ['ann@x.org'], ['bob@x.org'], ['cy@x.org']] };
    expect((await open(await threeSheets(few), { sheet: { choose: true } })).sheet).toBe('Few');
    const ids = { name: 'Ids', rows: [['Customer no.'], ['1001'], ['1002']] };
    expect((await open(await threeSheets(ids), { sheet: { choose: true } })).sheet).toBe('Ids');
    const short = {
      name: 'Short',
      rows: [
        ['Email', 'Name'],
        ['ann@x.org', 'Ann'],
      ],
    };
    expect((await open(await threeSheets(short), { sheet: { choose: true } })).sheet).toBe('Short');
    // Covers alone: the first of them still opens.
    const covers = await workbookOf([cover, { name: 'Notes', rows: [['a'], ['b']] }]);
    expect((await open(covers, { sheet: { choose: true } })).sheet).toBe('Cover');
  });

  it('skips a very hidden sheet too', async () => {
    const table = await open(await threeSheets({ name: 'Macro', state: 'veryHidden', rows: [['x']] }), { sheet: { choose: true } });
    expect(table.sheets![0]).toEqual({ name: 'Macro', state: 'veryHidden', has_data: true });
    expect(table.sheet).toBe('People');
    expect((await rowsOf(table))[0]).toEqual(['Email', 'Name']);
  });

  it('with data on hidden sheets alone, opens on the first of them rather than finding nothing', async () => {
    const bytes = await workbookOf([
      { name: 'Empty', rows: [] },
      { name: 'Secret', state: 'hidden', rows: [['h'], ['1']] },
    ]);
    const table = await open(bytes, { sheet: { choose: true } });
    expect(table.sheet).toBe('Secret');
    expect(await rowsOf(table)).toEqual([['h'], ['1']]);
  });

  it('a workbook without data opens on its first sheet, with no rows', async () => {
    const table = await open(
      await workbookOf([
        { name: 'A', rows: [] },
        { name: 'B', rows: [] },
      ]),
      { sheet: { choose: true } },
    );
    expect(table.sheets!.map((s) => s.has_data)).toEqual([false, false]);
    expect(table.sheet).toBe('A');
    expect(await rowsOf(table)).toEqual([]);
  });

  it('a sheet not chosen whose first row the limits refuse does not fail the read (it has data; reading it would)', async () => {
    const bytes = await workbookOf([
      { name: 'People', rows: [['Email'], ['a@x.org']] },
      { name: 'Wide', rows: [Array.from({ length: 20 }, (_, i) => `c${i}`)] },
    ]);
    const table = await open(bytes, { sheet: { choose: true } }, { maxColumns: 10 });
    expect(table.sheets!.map((s) => [s.name, s.has_data])).toEqual([
      ['People', true],
      ['Wide', true],
    ]);
    expect(await rowsOf(table)).toEqual([['Email'], ['a@x.org']]);
    const wide = await open(bytes, { sheet: 'Wide' }, { maxColumns: 10 });
    await expect(rowsOf(wide)).rejects.toMatchObject({ kind: 'tooManyColumns' });
  });

  it('names every sheet once: repeated and missing names get a suffix or the part name', async () => {
    const bytes = await repack(await threeSheets(), (p) => {
      const workbook = (p.get('xl/workbook.xml') as Buffer).toString();
      p.set('xl/workbook.xml', Buffer.from(workbook.replace('name="Orders"', 'name="people"').replace('name="Notes"', '')));
    });
    const table = await open(bytes, { sheet: { choose: true } });
    expect(table.sheets!.map((s) => s.name)).toEqual(['sheet1', 'People', 'people (2)']);
    expect((await rowsOf(table))[0]).toEqual(['Email', 'Name']);
    expect(await rowsOf(await open(bytes, { sheet: 'people (2)' }))).toEqual([
      ['Order', 'Email', 'Total'],
      ['A-1', 'ada@example.com', '12.5'],
    ]);
  });
});

describe('reading a chosen sheet', () => {
  it('reads the sheet named, hidden or not, and says which', async () => {
    const bytes = await threeSheets();
    const orders = await open(bytes, { sheet: 'Orders' });
    expect(orders.sheet).toBe('Orders');
    expect(orders.sheets).toBeUndefined();
    expect(await rowsOf(orders)).toEqual([
      ['Order', 'Email', 'Total'],
      ['A-1', 'ada@example.com', '12.5'],
    ]);
    expect(await rowsOf(await open(bytes, { sheet: 'Notes', packageChecked: true }))).toEqual([['note'], ['draft, do not import']]);
  });

  it('a name the workbook does not have fails the read with a clear problem', async () => {
    const table = await open(await threeSheets(), { sheet: 'Invoices' });
    const failure = await rowsOf(table).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SourceProblem);
    expect(failure).toMatchObject({ kind: 'unreadableFile', message: 'The workbook has no sheet named "Invoices".' });
  });

  it('without a choice (runs ingested before sheets were listed), reads the first sheet with rows, hidden or not, as before', async () => {
    const table = await open(await threeSheets(), {});
    expect(table.sheet).toBeUndefined();
    expect(await rowsOf(table)).toEqual([['note'], ['draft, do not import']]);
  });
});
