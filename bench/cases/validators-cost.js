/* What every validator costs on a big file: the CSV case's file (cases/csv-pipeline.js) written
 * twice in one run, approve -> output-ready, under its plain schema and under the same schema with
 * every check a customer may add (pattern, min/max on numbers and dates, min/max_length, unique,
 * unique_with, number_format, allowed values). Ratio = plain output time / checked output time:
 * 1 means the checks cost nothing, 0.5 that they double the output's time. The service's CPU
 * seconds of each output are reported beside (less moved by the other work on the machine). */
const fs = require('node:fs');
const path = require('node:path');
const { startService } = require('../lib/service');
const { FIELDS, generateCsv } = require('./csv-pipeline');

const CHECKED = {
  id: { description: 'row id', data_type: 'integer', is_required: true, unique: true, min: 0, max: 100_000_000 },
  email: { ...FIELDS.email, pattern: '^[a-z0-9.]+@example\\.com$', max_length: 80 },
  name: { ...FIELDS.name, min_length: 3, max_length: 40, pattern: '^[A-ZÀ-Ý ]+[0-9]+$' },
  birth_date: { ...FIELDS.birth_date, min: '1900-01-01', max: '2020-12-31' },
  city: {
    description: 'city',
    data_type: 'enum',
    is_required: false,
    allowed_values: [{ value: 'Köln, DE' }, { value: 'Berlin, DE' }],
  },
  notes: { description: 'notes', data_type: 'string', is_required: false, min_length: 1, max_length: 200 },
};
const PLAIN = {
  ...FIELDS,
  id: { description: 'row id', data_type: 'integer', is_required: true },
  notes: { description: 'notes', data_type: 'string', is_required: false },
};

async function outputSeconds(work, file, name, fields, options) {
  const svc = await startService({ dataDir: path.join(work, `data-${name}`) });
  try {
    const org = await svc.organization(fields, options);
    const run = await svc.runFile(org, file, 'input.csv');
    return {
      seconds: run.outputSeconds,
      cpuSeconds: run.outputCpuSeconds,
      duplicatesSeconds: await svc.stepSeconds('duplicates'),
      rows: run.rowsWritten,
      peakRssMb: svc.peakRssMb(),
    };
  } finally {
    await svc.stop();
  }
}

async function validatorsCost({ work, rows }) {
  const file = path.join(work, 'input-validators.csv');
  await generateCsv(file, rows);
  const bytes = fs.statSync(file).size;
  const plain = await outputSeconds(work, file, 'plain', PLAIN, {});
  const checked = await outputSeconds(work, file, 'checked', CHECKED, { unique_with: [['name', 'city']] });
  if (checked.rows !== plain.rows) throw new Error(`rows written differ: ${checked.rows} checked, ${plain.rows} plain`);
  return {
    name: `Every validator on, CSV ${rows} rows (${(bytes / 1e6).toFixed(0)} MB), approve->output`,
    baseline: `the same file and fields without validators ${plain.seconds.toFixed(2)} s (service CPU ${plain.cpuSeconds.toFixed(2)} s)`,
    measured: `${checked.seconds.toFixed(2)} s (a duplicates pass of ${checked.duplicatesSeconds.toFixed(2)} s, then the output; service CPU ${checked.cpuSeconds.toFixed(2)} s, CPU ratio ${(plain.cpuSeconds / checked.cpuSeconds).toFixed(3)})`,
    ratio: plain.seconds / checked.seconds,
    target: 0.5,
    peakRssMb: Math.max(plain.peakRssMb, checked.peakRssMb),
  };
}

module.exports = { validatorsCost };
