/* GET of a run under load (autocannon, 50 connections): the service against a bare Node
 * server answering the same bytes, both measured in this run; then the same GET while the
 * service writes a large output, counted from the approval (the clients polling since before
 * it). Each load has a short warm-up first (JIT), as request-overhead.js does: without it, the
 * service's first seconds of compiling were counted in its p99. The bare server is
 * request-overhead.js's, in a process of its own.
 *
 * BENCH_GET_OUTPUT_ELSEWHERE=1: the large output is written by a second service (a process of
 * its own, its own data) while the first answers the GETs: an experiment that tells what the
 * output costs the API's process itself from what it costs any process on the same cores. */
const path = require('node:path');
const { startService, sleep } = require('../lib/service');
const { generateCsv, FIELDS } = require('./csv-pipeline');
const { load, loadBare, BARE_NODE } = require('./request-overhead');

const DURATION_S = Number(process.env.BENCH_GET_SECONDS || 10);
const WARMUP_S = 2;
const P99_TARGET_MS = 25;
const ELSEWHERE = process.env.BENCH_GET_OUTPUT_ELSEWHERE === '1';

async function getLatency({ work, rows }) {
  const file = path.join(work, 'get-input.csv');
  await generateCsv(file, rows);
  const svc = await startService({ dataDir: path.join(work, 'data-get') });
  try {
    const org = await svc.organization(FIELDS);
    // A small completed run to GET.
    const small = path.join(work, 'small.csv');
    await generateCsv(small, 10);
    const done = await svc.runFile(org, small, 'small.csv');
    const url = `${svc.base}/v1/transformations/${done.runId}`;
    const headers = { authorization: `Bearer ${org.apiKey}` };
    const body = await (await fetch(url, { headers })).text();
    // The bare server runs in a process of its own, as the service does: served from the bench's
    // process it shared an event loop with autocannon and answered about half as fast, which made
    // this case's ratio look twice what request-overhead.js measured for the same GET.
    const bareResult = await loadBare(BARE_NODE, body);
    await load(url, headers, WARMUP_S);
    const idle = await load(url, headers, DURATION_S);

    // The same GET while a large file's output is written. The clients are already polling when the
    // review is approved (WARMUP_S before it, as a customer's pollers are while a person reviews), and
    // what is counted is from the approval on. Started at the approval, the load paid for re-optimising
    // the request path: the big run's create and upload (a POST and a PUT with bodies, other shapes of
    // request) had deoptimised it ("wrong map", --trace-deopt), and only the bench's own polls ran
    // until the approval. A JIT cost of the bench's order of events, which its idle load already
    // excludes with a warm-up; a service whose writes and polls interleave keeps that code optimised.
    const writer = ELSEWHERE ? await startService({ dataDir: path.join(work, 'data-get-output') }) : svc;
    let busy;
    let big;
    try {
      const writerOrg = ELSEWHERE ? await writer.organization(FIELDS) : org;
      let approvedAt;
      const countFrom = new Promise((r) => (approvedAt = r));
      let polling;
      try {
        big = await writer.runFile(writerOrg, file, 'big.csv', {
          beforeApproval: async () => {
            polling = load(url, headers, WARMUP_S + DURATION_S, { perSecond: true, countFrom });
            polling.catch(() => {}); // awaited below; a failure is thrown there
            await sleep(WARMUP_S * 1000);
          },
          onApproved: () => approvedAt(Date.now()),
        });
      } catch (err) {
        polling?.stop(); // the run failed: no 50 clients left polling a service about to stop
        throw err;
      }
      busy = await polling;
    } finally {
      if (ELSEWHERE) await writer.stop();
    }
    return [
      {
        name: 'GET of a run, idle',
        baseline: `bare Node ${bareResult.rps.toFixed(0)} req/s`,
        measured: `${idle.rps.toFixed(0)} req/s, p99 ${idle.p99} ms`,
        ratio: idle.rps / bareResult.rps,
        target: 0.5,
        limit: { what: 'p99', value: idle.p99, max: P99_TARGET_MS, unit: 'ms' },
        peakRssMb: svc.peakRssMb(),
      },
      {
        name: `GET of a run during a ${rows}-row output${ELSEWHERE ? ' written by another service process' : ''}`,
        baseline: `bare Node ${bareResult.rps.toFixed(0)} req/s`,
        measured: `${busy.rps.toFixed(0)} req/s, p99 ${busy.p99} ms (output took ${big.outputSeconds.toFixed(1)} s); each second from the approval, answers/p99 ms: ${busy.seconds.map((s) => `${s.requests}/${s.p99.toFixed(0)}`).join(' ')}`,
        ratio: busy.rps / bareResult.rps,
        target: null,
        limit: { what: 'p99', value: busy.p99, max: P99_TARGET_MS, unit: 'ms' },
        peakRssMb: svc.peakRssMb(),
      },
    ];
  } finally {
    await svc.stop();
  }
}

module.exports = { getLatency };
