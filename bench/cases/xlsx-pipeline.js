/* The real-size workbook case: a 200k-row XLSX written by exceljs's own streaming writer
 * (shared strings, date cells; it stores xl/sharedStrings.xml after the sheet, as Excel
 * does) through the service, against two bare exceljs streaming reads of the same file
 * measured in the same run. */
const path = require('node:path');
const ExcelJS = require('exceljs');
const { startService } = require('../lib/service');

const FIELDS = {
  email: { description: 'e-mail', data_type: 'email', is_required: true, transformations: { lowercase: { enabled: true } } },
  name: { description: 'name', data_type: 'string', is_required: false, transformations: { uppercase: { enabled: true } } },
  joined: { description: 'joined', data_type: 'date', is_required: false },
  amount: { description: 'amount', data_type: 'number', is_required: false },
};

async function generateXlsx(file, rows) {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true });
  const sheet = workbook.addWorksheet('people');
  sheet.columns = [
    { header: 'Email', key: 'email' },
    { header: 'Name', key: 'name' },
    { header: 'Joined', key: 'joined', style: { numFmt: 'yyyy-mm-dd' } },
    { header: 'Amount', key: 'amount' },
    { header: 'City', key: 'city' },
  ];
  for (let i = 0; i < rows; i++) {
    sheet
      .addRow({
        email: `User${i}@Example.com`,
        name: `Name ${i % 997}`,
        joined: new Date(Date.UTC(1990 + (i % 30), i % 12, 1 + (i % 28))),
        amount: (i * 7.31) % 10000,
        city: ['Köln', 'Paris', 'Łódź', 'Madrid'][i % 4],
      })
      .commit();
  }
  sheet.commit();
  await workbook.commit();
}

async function bareExceljsRead(file) {
  const t0 = process.hrtime.bigint();
  let rows = 0;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
  });
  for await (const sheet of reader) for await (const _row of sheet) rows++;
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, rows };
}

async function xlsxPipeline({ work, rows }) {
  const file = path.join(work, 'input.xlsx');
  await generateXlsx(file, rows);
  const first = await bareExceljsRead(file);
  const second = await bareExceljsRead(file);
  const baseline = first.seconds + second.seconds;
  const svc = await startService({ dataDir: path.join(work, 'data-xlsx') });
  try {
    const org = await svc.organization(FIELDS);
    const run = await svc.runFile(org, file, 'input.xlsx');
    const total = run.reviewSeconds + run.outputSeconds;
    if (run.rowsWritten !== rows) throw new Error(`the service wrote ${run.rowsWritten} rows of ${rows}`);
    return {
      name: `XLSX ${rows} rows (Excel's part order)`,
      baseline: `two bare exceljs streaming reads ${baseline.toFixed(2)} s`,
      measured: `upload->review ${run.reviewSeconds.toFixed(2)} s + approve->output ${run.outputSeconds.toFixed(2)} s`,
      ratio: baseline / total,
      target: 0.5,
      peakRssMb: svc.peakRssMb(),
    };
  } finally {
    await svc.stop();
  }
}

module.exports = { xlsxPipeline, generateXlsx };
