/* What dates written in the forms customers' exports use cost on a big file: one file of ten date columns (ISO 8601
 * days, basic days, date-times in UTC, with an offset, with milliseconds, with a space; a pattern's days; an ISO day
 * rewritten by a date_format into a pattern; a pattern with a zone offset; one with milliseconds) uploaded twice, each
 * time into its own service: under a schema that reads every column as a date or date-time, and under one that takes
 * each as a string. Ratio = the plain run's upload->review-ready plus approve->output-ready / the dated run's: 1 means
 * reading the dates costs nothing, 0.5 that it doubles the work. Before 2026-12-07 (iso-date.ts; zone offsets and
 * fractions of a second in date-pattern.ts) each ISO value with a time and each value of the last two patterns went
 * through date-fns, 3 to 20 µs a value. */
const fs = require('node:fs');
const path = require('node:path');
const { startService } = require('../lib/service');
const { writeCsv } = require('../lib/write-csv');

const date = (description, extra = {}) => ({ description, data_type: 'date', is_required: false, ...extra });
const dateTime = (description, extra = {}) => ({ description, data_type: 'datetime', is_required: false, ...extra });

const DATED = {
  id: { description: 'row id', data_type: 'integer', is_required: true },
  iso_day: date('ISO day'),
  basic_day: date('ISO basic day'),
  stamp_utc: dateTime('ISO date-time in UTC'),
  stamp_offset: dateTime('ISO date-time with an offset'),
  stamp_millis: dateTime('ISO date-time with milliseconds'),
  stamp_space: dateTime('ISO date-time with a space'),
  pattern_day: date('a day in a pattern', { format: 'dd/MM/yyyy' }),
  iso_to_pattern: date('an ISO day rewritten', { transformations: { date_format: { enabled: true, to: 'dd.MM.yyyy' } } }),
  zoned_pattern: dateTime('a pattern with a zone', { format: "yyyy-MM-dd'T'HH:mm:ssXXX" }),
  millis_pattern: dateTime('a pattern with milliseconds', { format: 'dd.MM.yyyy HH:mm:ss.SSS' }),
};
const PLAIN = Object.fromEntries(
  Object.entries(DATED).map(([name, f]) => [
    name,
    name === 'id' ? f : { description: f.description, data_type: 'string', is_required: false },
  ]),
);

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Row n (from 1): dates that move every row (days over 70 years, every hour, minute and second, offsets both ways). */
function dateCells(n) {
  const i = n - 1;
  const y = 1950 + (i % 70);
  const mo = pad(1 + (Math.floor(i / 28) % 12));
  const d = pad(1 + (i % 28));
  const time = `${pad(i % 24)}:${pad((i * 7) % 60)}:${pad((i * 13) % 60)}`;
  const offset = `${i % 2 ? '+' : '-'}${pad(i % 13)}:${i % 4 < 2 ? '00' : '30'}`;
  return [
    i,
    `${y}-${mo}-${d}`,
    `${y}${mo}${d}`,
    `${y}-${mo}-${d}T${time}Z`,
    `${y}-${mo}-${d}T${time}${offset}`,
    `${y}-${mo}-${d}T${time}.${pad(i % 1000, 3)}Z`,
    `${y}-${mo}-${d} ${time}`,
    `${d}/${mo}/${y}`,
    `${y}-${mo}-${d}`,
    `${y}-${mo}-${d}T${time}${offset}`,
    `${d}.${mo}.${y} ${time}.${pad(i % 1000, 3)}`,
  ];
}

async function throughOwnService(work, file, name, fields) {
  const svc = await startService({ dataDir: path.join(work, `data-dates-${name}`) });
  try {
    const org = await svc.organization(fields);
    const run = await svc.runFile(org, file, 'dates.csv');
    return { ...run, peakRssMb: svc.peakRssMb() };
  } finally {
    await svc.stop();
  }
}

async function dateShapes({ work, rows }) {
  const file = path.join(work, 'input-dates.csv');
  await writeCsv(file, Object.keys(DATED).join(','), rows, (n) => dateCells(n).join(','));
  const bytes = fs.statSync(file).size;
  const plain = await throughOwnService(work, file, 'plain', PLAIN);
  const dated = await throughOwnService(work, file, 'dated', DATED);
  for (const run of [plain, dated]) if (run.rowsWritten !== rows) throw new Error(`dates: ${run.rowsWritten} rows written of ${rows}`);
  const total = (run) => run.reviewSeconds + run.outputSeconds;
  const cpu = (run) => run.reviewCpuSeconds + run.outputCpuSeconds;
  const figures = (run) =>
    `${run.reviewSeconds.toFixed(2)} s + ${run.outputSeconds.toFixed(2)} s (service CPU ${run.reviewCpuSeconds.toFixed(2)} + ${run.outputCpuSeconds.toFixed(2)} s)`;
  return {
    name: `Dates in ten forms, CSV ${rows} rows (${(bytes / 1e6).toFixed(0)} MB), upload->review-ready + approve->output-ready`,
    baseline: `the same file with every column a string: ${figures(plain)}`,
    measured: `${figures(dated)}, CPU ratio ${(cpu(plain) / cpu(dated)).toFixed(3)}`,
    ratio: total(plain) / total(dated),
    target: 0.5,
    peakRssMb: Math.max(plain.peakRssMb, dated.peakRssMb),
  };
}

module.exports = { dateShapes, dateCells, DATE_FIELDS: DATED };
