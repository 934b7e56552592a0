/* Every real-size target in one command (`npm run bench`, builds first). Each figure is a
 * ratio to a baseline measured in the same run: the machine is shared and noisy.
 *   BENCH_ROWS     rows of the CSV case (default 1,000,000)
 *   BENCH_XLSX_ROWS rows of the workbook case (default 200,000)
 *   BENCH_WIDE_ROWS rows of the wide CSV case (default 400,000: about the CSV case's 94 MB)
 *   BENCH_MANY_ROWS rows of the many-fields CSV case (default 80,000: 117 MB)
 *   BENCH_MANY_COPIES how many times over the many-fields case repeats the wide file's 20 fields (default 6: 120 fields)
 *   BENCH_DATES_ROWS rows of the dates case (default 300,000)
 *   BENCH_CASES    comma-separated subset of: csv,csv-distinct,wide,many,xlsx,get,healthz,run-get,schemas,validators,dates,review,review-many,large,floor (default all)
 *   BENCH_WARM_RUN=0 no second run of a file case's file in the same service (its threads warm; reported, not the ratio)
 * With both `csv` and `floor` in the run, a last row sets the csv case's ratio against the two-thread floor's.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { csvPipeline } = require('./cases/csv-pipeline');
const { getLatency } = require('./cases/get-latency');
const { requestOverhead } = require('./cases/request-overhead');
const { xlsxPipeline } = require('./cases/xlsx-pipeline');
const { validatorsCost } = require('./cases/validators-cost');
const { dateShapes } = require('./cases/date-shapes');
const { widePipeline } = require('./cases/wide-pipeline');
const { manyFieldsPipeline } = require('./cases/many-fields-pipeline');
const { reviewLarge } = require('./review-large.bench');
const { reviewManyFields } = require('./cases/review-many-fields');
const { csvFloor } = require('./csv-floor.bench');
const { largeFiles } = require('./large-files.bench');

/** Issue 28: the service at 70% or more of the least work the csv case needs on two threads. */
const FLOOR_SHARE_TARGET = 0.7;

const CASES = {
  csv: (work) => csvPipeline({ work, rows: Number(process.env.BENCH_ROWS || 1_000_000) }),
  // The same with no value repeated: what the CSV case costs when remembering repeated values cannot help.
  'csv-distinct': (work) => csvPipeline({ work, rows: Number(process.env.BENCH_ROWS || 1_000_000), distinct: true }),
  // A schema unlike the bench's: 24 columns, every kind of field (cases/wide-pipeline.js).
  wide: (work) => widePipeline({ work, rows: Number(process.env.BENCH_WIDE_ROWS || 400_000) }),
  // The wide file's fields six times over: 120 fields (cases/many-fields-pipeline.js).
  many: (work) => manyFieldsPipeline({ work, rows: Number(process.env.BENCH_MANY_ROWS || 80_000) }),
  xlsx: (work) => xlsxPipeline({ work, rows: Number(process.env.BENCH_XLSX_ROWS || 200_000) }),
  get: (work) => getLatency({ work, rows: Number(process.env.BENCH_ROWS || 1_000_000) }),
  // The cost of one request, route by route (cases/request-overhead.js).
  healthz: (work) => requestOverhead({ work, route: 'healthz' }),
  'run-get': (work) => requestOverhead({ work, route: 'run-get' }),
  schemas: (work) => requestOverhead({ work, route: 'schemas' }),
  // What the data checks of issue 29 cost per row (cases/validators-cost.js).
  validators: (work) => validatorsCost({ work, rows: Number(process.env.BENCH_ROWS || 1_000_000) }),
  // Dates in the forms exports write them, against the same columns as strings (cases/date-shapes.js).
  dates: (work) => dateShapes({ work, rows: Number(process.env.BENCH_DATES_ROWS || 300_000) }),
  // The review on a large file: the count and any page of rows with problems (review-large.bench.js, `npm run bench:review` alone).
  review: () => reviewLarge({ rows: Number(process.env.BENCH_ROWS || 1_000_000) }),
  // The same pages under the many case's 120 fields (cases/review-many-fields.js).
  'review-many': (work) => reviewManyFields({ work, rows: Number(process.env.BENCH_MANY_ROWS || 80_000) }),
  // Peak RSS on a 1 GiB CSV, a 60 MB field and a workbook bomb, each in a fresh service (large-files.bench.js, `npm run bench:large` alone).
  large: () => largeFiles(),
  // The least work the csv case needs, without the service (csv-floor.bench.js, `npm run bench:floor` alone).
  floor: async () => {
    const floor = await csvFloor({ rows: Number(process.env.BENCH_ROWS || 1_000_000) });
    return {
      name: `CSV floor, ${floor.rows} rows: the least work on two threads (median of ${floor.rounds} rounds)`,
      measured:
        `one thread ${floor.one.toFixed(3)}, two threads ${floor.two.toFixed(3)}; ` +
        `two threads with the upload to a bare receiver (${floor.upload.toFixed(2)} s) overlapped with the check ${floor.twoWithUpload.toFixed(3)}`,
      baseline: 'bare papaparse object parse',
      ratio: floor.two,
      twoWithUpload: floor.twoWithUpload,
      target: null,
      peakRssMb: null,
    };
  },
};

/** The csv case against the two-thread floor of the same run, when both ran. */
function againstFloor(results) {
  const csv = results.find((r) => r.case === 'csv');
  const floor = results.find((r) => r.case === 'floor');
  if (!csv || !floor) return [];
  return [
    {
      name: 'CSV case against the two-thread floor',
      measured: `ratio ${csv.ratio.toFixed(3)}`,
      baseline: `floor ${floor.ratio.toFixed(3)}`,
      ratio: csv.ratio / floor.ratio,
      target: FLOOR_SHARE_TARGET,
      peakRssMb: null,
    },
    // The csv case's interval begins with the upload, which the floor above leaves out: this floor
    // receives the file too (at best while the check reads it). Informative; the target stays above.
    {
      name: 'CSV case against the two-thread floor with its upload',
      measured: `ratio ${csv.ratio.toFixed(3)}`,
      baseline: `floor with the upload ${floor.twoWithUpload.toFixed(3)}`,
      ratio: csv.ratio / floor.twoWithUpload,
      target: null,
      peakRssMb: null,
    },
    // The csv case's second run, its threads warm (cases/csv-pipeline.js): informative, as a busy service runs.
    ...(csv.warmRatio
      ? [
          {
            name: 'CSV case run again at once (threads warm) against the two-thread floor',
            measured: `ratio ${csv.warmRatio.toFixed(3)}`,
            baseline: `floor ${floor.ratio.toFixed(3)}`,
            ratio: csv.warmRatio / floor.ratio,
            target: null,
            peakRssMb: null,
          },
        ]
      : []),
  ];
}

async function main() {
  const chosen = (process.env.BENCH_CASES || Object.keys(CASES).join(',')).split(',');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const results = [];
  try {
    for (const name of chosen) {
      if (!CASES[name]) throw new Error(`unknown case ${name}; known: ${Object.keys(CASES).join(', ')}`);
      for (const r of [await CASES[name](work)].flat()) {
        results.push({ ...r, case: name });
        console.log(`${r.name}: ${r.measured} vs ${r.baseline}: ratio ${ratioText(r)}, service peak RSS ${rssText(r)}`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log('\n| case | measured | baseline | ratio | target | peak RSS |\n|---|---|---|---|---|---|');
  for (const r of [...results, ...againstFloor(results)]) {
    const ratioOk = r.target === null || r.ratio >= r.target;
    const limitOk = !r.limit || r.limit.value < r.limit.max;
    const rssOk = r.peakRssMb === null || r.peakRssMb < 256;
    const met = ratioOk && limitOk && rssOk ? 'met' : 'NOT met';
    const target = [
      r.target === null ? null : `ratio >= ${r.target}`,
      r.limit ? `${r.limit.what} < ${r.limit.max} ${r.limit.unit} (${r.limit.value.toFixed(1)})` : null,
      r.peakRssMb === null ? null : 'RSS < 256 MB',
    ]
      .filter(Boolean)
      .join(', ');
    console.log(
      `| ${r.name} | ${r.measured} | ${r.baseline} | ${ratioText(r)} | ${target ? `${target}: ${met}` : 'reported'} | ${rssText(r)} |`,
    );
  }
}

const ratioText = (r) => (r.ratio === null ? '-' : r.ratio.toFixed(3));
/** The service's peak RSS; none for a case without the service (the floor). */
const rssText = (r) => (r.peakRssMb === null ? '-' : `${r.peakRssMb.toFixed(0)} MB`);

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
