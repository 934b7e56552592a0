import { runStreamId, type StoredEvent } from '@app/contracts';
import { EVENT_STORE, type EventStore } from '@app/event-store';
import { WebhookReceiver } from '../support/webhook-receiver';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * Fixing values in the review: cell edits, find and replace and normalisers are events of
 * the run, seen alike by the preview, the counts, the rows with problems and the output;
 * undo takes the latest back; approval may leave the rows still with problems out.
 */
describe('review fixes', () => {
  let svc: Service;
  let receiver: WebhookReceiver;
  let org: Awaited<ReturnType<typeof setupOrganization>>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    svc = await startService({ WEBHOOK_RETRY_DELAYS_MS: '60,60' });
    org = await setupOrganization(svc);
  });
  afterAll(async () => {
    await svc.stop();
    await receiver.stop();
  });

  // Row 1: an amount for an integer; 2: a date in a second pattern; 3: no e-mail;
  // 4: a bad e-mail and "N/A" for the age; 5: clean.
  const CSV = [
    'E-mail,Name,Age,Born',
    'a@x.org,Ann,$40,01/02/1990',
    'b@x.org,Bob,41,03.02.1990',
    ',Cy,42,01/01/1980',
    'd@x,Di,N/A,01/01/1981',
    'e@x.org,Ed,43,02/02/1982',
  ].join('\n');
  const MAPPING = { email: 'E-mail', first_name: 'Name', age: 'Age', born: 'Born' };

  async function readyReview() {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv', notify_url: `${receiver.url}/hook` },
    });
    expect((await upload(run.body, CSV)).status).toBe(200);
    await waitForRun(svc, org.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit(MAPPING)).status).toBe(200);
    return { runId: run.body.id as string, review };
  }

  const events = async (runId: string): Promise<StoredEvent[]> => svc.app.get<EventStore>(EVENT_STORE).readStream(runStreamId(runId));

  it('fixes values by normaliser, cell edit and find and replace; every reader sees the fixes; undo takes the latest back', async () => {
    const { runId, review } = await readyReview();
    const before = await review.problems();
    expect(before.body).toMatchObject({ rows_with_problems: 4, problems_by_field: { email: 2, age: 2, born: 1 } });

    expect((await review.fix('age', { kind: 'normalise', normaliser: 'amount' })).status).toBe(200);
    expect((await review.fix('born', { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' })).status).toBe(200);
    expect((await review.fix('email', { kind: 'cell', row: 3, before: '', after: 'c@x.org' })).status).toBe(200);
    const last = await review.fix('age', { kind: 'replace', find: 'N/A', replace: '', whole_value: true });
    expect(last.status).toBe(200);
    expect(last.body.value_fixes.map((f: { field: string; fix: { kind: string } }) => [f.field, f.fix.kind])).toEqual([
      ['age', 'normalise'],
      ['born', 'normalise'],
      ['email', 'cell'],
      ['age', 'replace'],
    ]);

    const preview = (await review.preview()).body.rows;
    expect(preview[0].age).toEqual({ value: '40', problem: null });
    expect(preview[1].born).toEqual({ value: '1990-02-03', problem: null });
    expect(preview[2].email).toEqual({ value: 'c@x.org', problem: null });
    expect(preview[3].age).toEqual({ value: null, problem: null });
    expect((await review.problems()).body).toMatchObject({ rows_with_problems: 1, problems_by_field: { email: 1, age: 0, born: 0 } });
    const rows = await review.problemRows({});
    expect(rows.body.rows.map((r: { row: number }) => r.row)).toEqual([4]);

    // Each fix is an event of the run: who, when, and what it changes (before and after for a cell).
    const fixed = (await events(runId)).filter((e) => e.type === 'ValuesFixed').map((e) => e.data as any);
    expect(fixed).toHaveLength(4);
    expect(fixed[2]).toMatchObject({
      field: 'email',
      fixed_by: 'review_link',
      fix: { kind: 'cell', row: 3, before: '', after: 'c@x.org' },
    });
    expect(Date.parse(fixed[2].fixed_at)).not.toBeNaN();

    const undone = await review.undo();
    expect(undone.status).toBe(200);
    expect(undone.body.value_fixes).toHaveLength(3);
    expect((await review.preview()).body.rows[3].age).toEqual({ value: 'N/A', problem: 'type' });
    expect((await review.problems()).body).toMatchObject({ rows_with_problems: 1, problems_by_field: { email: 1, age: 1 } });
    const undoEvents = (await events(runId)).filter((e) => e.type === 'ValueFixUndone');
    expect(undoEvents.map((e) => (e.data as { fix_id: string }).fix_id)).toEqual([last.body.value_fixes[3].fix_id]);
  });

  it("undo with the fixes the page shows refuses, after another reviewer's fix, to take theirs back (409 fixes_conflict)", async () => {
    const { runId, review } = await readyReview();
    const mine = await review.fix('age', { kind: 'normalise', normaliser: 'amount' });
    expect(mine.status).toBe(200);
    // Another reviewer, on another page, fixes a value after this page was given its fixes_key.
    const theirs = await review.fix('born', { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' });
    expect(theirs.status).toBe(200);

    const stale = await review.undo(mine.body.fixes_key);
    expect([stale.status, stale.body.error.code]).toEqual([409, 'fixes_conflict']);
    expect(stale.body.error.message).toContain('nothing was undone');
    expect((await events(runId)).filter((e) => e.type === 'ValueFixUndone')).toHaveLength(0);

    const current = await review.undo(theirs.body.fixes_key);
    expect(current.status).toBe(200);
    expect(current.body.value_fixes.map((f: { field: string }) => f.field)).toEqual(['age']);
    expect((await review.undo(42)).body.error.fields).toHaveProperty('expected_fixes');
  });

  it('a cell edit applies only while the cell still reads what the reviewer saw', async () => {
    const { review } = await readyReview();
    // Row 2's name is "BOB" after the field's uppercase; an edit made against another value is refused and changes nothing.
    expect((await review.fix('first_name', { kind: 'cell', row: 2, before: 'SOMEONE ELSE', after: 'Robert' })).status).toBe(409);
    expect((await review.preview()).body.rows[1].first_name.value).toBe('BOB');
    expect((await review.fix('first_name', { kind: 'cell', row: 2, before: 'BOB', after: 'ROBERT' })).status).toBe(200);
    expect((await review.preview()).body.rows[1].first_name.value).toBe('ROBERT');
    // A mapping that feeds the field another column: the recorded edit is left unused rather than overwrite a value nobody saw.
    await review.edit({ ...MAPPING, first_name: 'E-mail' });
    expect((await review.preview()).body.rows[1].first_name.value).toBe('B@X.ORG');
  });

  it('refuses a cell edit whose before the cell no longer reads: 409 fixes_conflict naming the row, field and value; nothing is recorded', async () => {
    const { runId, review } = await readyReview();
    // One reviewer fixes row 2's name; another, still showing "BOB", fixes it too.
    expect((await review.fix('first_name', { kind: 'cell', row: 2, before: 'BOB', after: 'ROBERT' })).status).toBe(200);
    const stale = await review.fix('first_name', { kind: 'cell', row: 2, before: 'BOB', after: 'BOBBY' });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      error: {
        code: 'fixes_conflict',
        type: 'conflict',
        message:
          'Row 2 of "first_name" reads "ROBERT", not "BOB" (the fix\'s before); nothing was fixed. Load the rows again and fix the value as it reads now.',
        request_id: expect.any(String),
      },
    });
    const fixed = (await events(runId)).filter((e) => e.type === 'ValuesFixed');
    expect(fixed.map((e) => (e.data as { fix: { after: string } }).fix.after)).toEqual(['ROBERT']);
    expect((await review.state()).body.value_fixes).toHaveLength(1);
    expect((await review.preview()).body.rows[1].first_name.value).toBe('ROBERT');

    // The value as the fixes see it: after the field's transformations ("bob" reads "BOB") and the fixes in force; blank reads "".
    expect((await review.fix('first_name', { kind: 'cell', row: 1, before: 'Ann', after: 'ANNA' })).status).toBe(409);
    expect((await review.fix('first_name', { kind: 'cell', row: 2, before: 'ROBERT', after: 'BOBBY' })).status).toBe(200);
    expect((await review.fix('email', { kind: 'cell', row: 3, before: '', after: 'c@x.org' })).status).toBe(200);
    expect((await review.fix('email', { kind: 'cell', row: 3, before: '', after: 'cy@x.org' })).status).toBe(409);

    // Fixes of many values compare nothing: a find and replace that finds nothing is recorded as before.
    expect((await review.fix('first_name', { kind: 'replace', find: 'NOBODY', replace: 'X', whole_value: true })).status).toBe(200);
    expect((await review.fix('email', { kind: 'normalise', normaliser: 'trim' })).status).toBe(200);
    expect((await review.state()).body.value_fixes).toHaveLength(5);
  });

  it('a cell edit may name the value as the review shows it (a JSON number), and then applies', async () => {
    const counted = await setupOrganization(svc, { qty: { description: 'Quantity', data_type: 'integer', is_required: false, max: 100 } });
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: counted.apiKey,
      body: { schema_id: counted.schemaId, filename: 'qty.csv' },
    });
    expect((await upload(run.body, 'Qty\n150.0\n7\n')).status).toBe(200);
    await waitForRun(svc, counted.apiKey, run.body.id, (r) => r.review_state === 'active');
    const review = reviewApi(run.body.review_url);
    expect((await review.edit({ qty: 'Qty' })).status).toBe(200);
    // Over its max, the cell is shown as the number JSON will write, not as the text "150.0" the fixes compare.
    expect((await review.preview()).body.rows[0].qty).toEqual({ value: '150', problem: 'range' });
    expect((await review.fix('qty', { kind: 'cell', row: 1, before: '150', after: '15' })).status).toBe(200);
    expect((await review.preview()).body.rows[0].qty).toEqual({ value: '15', problem: null });
    const fixed = (await events(run.body.id)).filter((e) => e.type === 'ValuesFixed').map((e) => e.data as any);
    expect(fixed[0].fix).toEqual({ kind: 'cell', row: 1, before: '150.0', after: '15' });
    // Neither form of a value the cell does not hold.
    const stale = await review.fix('qty', { kind: 'cell', row: 2, before: '8', after: '9' });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'fixes_conflict' } } });
    expect(stale.body.error.message).toContain('reads "7", not "8"');
  });

  it('leaves the rows still with problems out when the reviewer chooses so; the run and the finished webhook say how many', async () => {
    const { runId, review } = await readyReview();
    await review.fix('age', { kind: 'normalise', normaliser: 'amount' });
    // Rows 2 (date), 3 (no e-mail) and 4 (e-mail, age) still have problems.
    expect((await review.approve(undefined, 'exclude')).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done.rows_excluded).toBe(3);
    expect(done.processed_rows).toBe(5); // every row processed: 2 written, 3 left out
    const output = await (await fetch(done.download_url)).json();
    expect(output).toEqual([
      { email: 'a@x.org', first_name: 'ANN', age: 40, born: '1990-02-01' },
      { email: 'e@x.org', first_name: 'ED', age: 43, born: '1982-02-02' },
    ]);
    const produced = (await events(runId)).find((e) => e.type === 'OutputProduced')!.data as any;
    expect(produced).toMatchObject({ rows_written: 2, rows_with_problems: 3, rows_excluded: 3 });
    const [delivery] = await receiver.waitFor(runId, 1);
    const hook = JSON.parse(delivery.body);
    expect(hook).toMatchObject({ event: 'transformation.finished', id: runId, rows_excluded: 3 });
  });

  it('delivers every row by default, and says 0 were left out', async () => {
    const { runId, review } = await readyReview();
    expect((await review.approve()).status).toBe(200);
    const done = await waitForRun(svc, org.apiKey, runId, (r) => r.status === 'completed' && r.stage === 'final');
    expect(done.rows_excluded).toBe(0);
    expect(await (await fetch(done.download_url)).json()).toHaveLength(5);
  });

  it('refuses what it cannot record, in the error envelope', async () => {
    const { review } = await readyReview();
    const refused = async (field: unknown, fix: unknown) => {
      const res = await review.fix(field, fix);
      return [res.status, res.body.error.code, res.body.error.message];
    };
    expect(await refused('nope', { kind: 'trim' })).toEqual([422, 'invalid_fix', 'The schema has no field "nope".']);
    expect((await refused('age', { kind: 'trim' })).slice(0, 2)).toEqual([422, 'invalid_fix']);
    expect((await refused('age', { kind: 'cell', row: 6, before: '', after: '1' }))[2]).toContain('from 1 to 5');
    expect((await refused('born', { kind: 'normalise', normaliser: 'date', date_pattern: 'dd/ff/yyyy' }))[2]).toContain('date_pattern');
    // A normaliser the field's type does not offer (the page offers only those that suit it).
    expect(await refused('email', { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' })).toEqual([
      422,
      'invalid_fix',
      'The date normaliser does not suit a field of data_type "email"; it offers trim.',
    ]);
    expect((await refused('born', { kind: 'normalise', normaliser: 'boolean' })).slice(0, 2)).toEqual([422, 'invalid_fix']);
    expect((await refused('age', { kind: 'replace', find: '', replace: 'x' }))[2]).toContain('find');
    expect((await refused(7, { kind: 'normalise', normaliser: 'trim' })).slice(0, 2)).toEqual([422, 'validation_failed']);
    const undo = await review.undo();
    expect([undo.status, undo.body.error.code]).toEqual([409, 'nothing_to_undo']);
    const approve = await review.approve(undefined, 'drop');
    expect(approve.status).toBe(422);
    expect(Object.keys(approve.body.error.fields)).toEqual(['rows_with_problems']);
    // The fixes the page saw, of another type than its fixes_key: refused, not read as absent (which approved unchecked).
    expect((await review.fix('age', { kind: 'normalise', normaliser: 'amount' })).status).toBe(200);
    for (const expected_fixes of [7, true, { a: 1 }, ['0:']]) {
      const garbled = await call(review.at('approve'), { method: 'POST', body: { expected_fixes } });
      expect([garbled.status, Object.keys(garbled.body.error.fields)]).toEqual([422, ['expected_fixes']]);
    }
    expect((await review.state()).body.phase).toBe('active');
  });
});
