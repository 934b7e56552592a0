/* What the review benches do with a service before they count and page: a timed JSON call, and a
 * file run uploaded and waited for until its review is open. */
const { putFile, sleep } = require('./service');

const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Times one JSON call; throws on a status that is not 2xx. */
async function timed(url, init = {}) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } });
  const body = await res.json();
  const took = msSince(t0);
  if (!res.ok) throw new Error(`${init.method || 'GET'} ${new URL(url).pathname} answered ${res.status}: ${JSON.stringify(body)}`);
  return { body, ms: took };
}

/**
 * Creates a file run of `org`'s schema, uploads `file` and polls the run until its review is open.
 * Returns the run's URL and the headers of its key, the open run, the seconds from the upload's
 * start to its end and to the open review, and `review(call)`, the URL of a call of its review page.
 */
async function openReview(svc, org, file, filename) {
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const run = (
    await timed(`${svc.base}/v1/transformations/file`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ schema_id: org.schemaId, filename }),
    })
  ).body;
  const runUrl = `${svc.base}/v1/transformations/${run.id}`;
  const t = process.hrtime.bigint();
  const uploaded = await putFile(run.upload.url, run.upload.headers, file);
  if (uploaded !== 200) throw new Error(`upload answered ${uploaded}`);
  const uploadSeconds = msSince(t) / 1000;
  let ready;
  for (;;) {
    ready = (await timed(runUrl, { headers: auth })).body;
    if (ready.status === 'failed') throw new Error(`run failed: ${JSON.stringify(ready.error)}`);
    if (ready.review_state === 'active') break;
    await sleep(100);
  }
  const reviewReadySeconds = msSince(t) / 1000;
  const link = new URL(ready.review_url);
  if (link.hostname !== '127.0.0.1') throw new Error(`the review link points at ${link.hostname}, not loopback`);
  const review = (call) => `${svc.base}${link.pathname}/${call}${link.search}`;
  return { auth, runUrl, ready, uploadSeconds, reviewReadySeconds, review };
}

module.exports = { timed, openReview };
