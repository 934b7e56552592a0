/* The CSV case for a schema of many fields (issue 28: "hold every target for any schema a
 * customer may bring ... many fields"): the wide file's 20 mapped columns six times over
 * (`_0` ... `_5`), 124 columns under a schema of 120 fields of every kind. BENCH_MANY_COPIES
 * sets how many times over (a schema holds up to 1,000 fields: 49 copies, 980). Each row is
 * about 1.5 KB at six copies, so a file of about the other cases' size has fewer rows
 * (BENCH_MANY_ROWS, default 80,000: 117 MB).
 *
 * Timed and compared as the `csv` and `wide` cases are: upload -> review-ready plus
 * approve -> output-ready, against a bare papaparse object parse of the same file in the same run. */
const fs = require('node:fs');
const path = require('node:path');
const { writeCsv } = require('../lib/write-csv');
const { throughService, figures } = require('./csv-pipeline');
const { wideCells, WIDE_FIELDS } = require('./wide-pipeline');

const COPIES = Number(process.env.BENCH_MANY_COPIES || 6);
const MAPPED = Object.keys(WIDE_FIELDS);

const FIELDS = Object.fromEntries(
  Array.from({ length: COPIES }, (_, k) =>
    MAPPED.map((key) => [`${key}_${k}`, { ...WIDE_FIELDS[key], description: `${WIDE_FIELDS[key].description} ${k}` }]),
  ).flat(),
);

const HEADER = [...Object.keys(FIELDS), 'source', 'batch', 'legacy_id', 'comment'].join(',');

function generateManyFieldsCsv(file, rows) {
  return writeCsv(file, HEADER, rows, (n) => {
    const cells = wideCells(n);
    const mapped = cells.slice(0, MAPPED.length).join(',');
    return [...Array.from({ length: COPIES }, () => mapped), ...cells.slice(MAPPED.length)].join(',');
  });
}

async function manyFieldsPipeline({ work, rows }) {
  const file = path.join(work, 'input-many-fields.csv');
  await generateManyFieldsCsv(file, rows);
  const bytes = fs.statSync(file).size;
  const measured = await throughService({ work, file, fields: FIELDS, dataDir: 'data-many-fields', filename: 'customers.csv' });
  if (measured.run.rowsWritten !== rows) throw new Error(`many fields: ${measured.run.rowsWritten} rows written of ${rows}`);
  return {
    name: `Many fields, CSV ${rows} rows (${(bytes / 1e6).toFixed(0)} MB, ${HEADER.split(',').length} columns, ${Object.keys(FIELDS).length} fields of every kind)`,
    ...figures(measured),
    ratio: measured.ratio,
    target: 0.35,
    peakRssMb: measured.peakRssMb,
  };
}

module.exports = { manyFieldsPipeline, generateManyFieldsCsv, MANY_FIELDS: FIELDS };
