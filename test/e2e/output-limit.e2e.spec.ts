import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * An output may be MAX_OUTPUT_RATIO times its source and always as large as MAX_UPLOAD_BYTES
 * (apps/output/src/output-limit.ts). Here both are small: the source is about 2 KB, the limit
 * 4,000 bytes. Its CSV output is about the source's size; its JSON output repeats each field's
 * name on every row and passes the limit.
 */
describe('the output limit', () => {
  const FIELDS = {
    a_rather_long_field_name_for_the_email: { description: 'E-mail', data_type: 'email', is_required: true },
    a_rather_long_field_name_for_the_score: { description: 'Score', data_type: 'integer', is_required: false },
  };
  const CSV = ['E-mail,Score', ...Array.from({ length: 100 }, (_, i) => `p${i}@x.org,${i}`)].join('\n');
  let svc: Service;
  let dataDir: string;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'output-limit-'));
    svc = await startService({ MAX_UPLOAD_BYTES: '4000', MAX_OUTPUT_RATIO: '1' }, dataDir);
    org = await setupOrganization(svc, FIELDS);
  });
  afterAll(() => svc.stop());

  async function approvedRun(outputFormat: 'json' | 'csv') {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv', output_format: outputFormat },
    });
    expect(run.status).toBe(201);
    expect((await upload(run.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    const mapping = { a_rather_long_field_name_for_the_email: 'E-mail', a_rather_long_field_name_for_the_score: 'Score' };
    expect((await review.approve(mapping)).status).toBe(200);
    return waitForRun(svc, org.apiKey, run.body.id, (r) => r.terminal === true);
  }

  it('an output within it is written as ever', async () => {
    const done = await approvedRun('csv');
    expect(done).toMatchObject({ status: 'completed', stage: 'final', error: null });
    const text = await (await fetch(done.download_url)).text();
    expect(text.split('\r\n')[1]).toBe('p0@x.org,0');
  });

  it('an output past it fails the run with output_too_large, names the limit, and leaves no file behind', async () => {
    const failed = await approvedRun('json');
    expect(failed).toMatchObject({
      status: 'failed',
      download_url: null,
      error: { code: 'output_too_large', type: 'limit', stage: 'final_processing', retryable: false, context: ['max 4000 bytes'] },
    });
    // Neither the output nor a piece of it: only the run's source is left in its folder.
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const left = files(join(dataDir, 'blobs'))
      .filter((f) => f.includes(failed.id))
      .map((f) => basename(f));
    expect(left).toContain('source');
    expect(left.filter((name) => name.startsWith('output'))).toEqual([]);
  });
});
