import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalBlobStore, readWholeBlob, UrlSigner } from '@app/blob-storage';
import { hookAnswersKeyOf, runFileKeys, type RunState } from '@app/domain';
import type { Findings } from './hook-answer';
import { HookAnswers } from './hook-answers.store';

const findings = (row: number, message: string, corrected: string | null = null): Findings =>
  new Map([[row, new Map([['email', { message, corrected_value: corrected }]])]]);

const runOf = (): RunState => {
  const id = randomUUID();
  return {
    id,
    rows_key: `runs/${id}/source`,
    source_key: `runs/${id}/source`,
    schema: { fields: {}, validation_url: 'https://hooks.example/v' },
  } as RunState;
};

describe('HookAnswers: the hook answers kept beside a run’s files', () => {
  let dir: string;
  let blobs: LocalBlobStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hook-answers-'));
    blobs = new LocalBlobStore(dir, new UrlSigner(Buffer.alloc(32, 1)), 'http://127.0.0.1');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('another instance (or this one after a restart) reads what one kept; a batch never answered is not known', async () => {
    const run = runOf();
    await new HookAnswers(blobs).keep(run, new Map([['batch-a', findings(2, 'blocked', 'b@ok.example')]]));
    const fresh = new HookAnswers(blobs);
    const known = await fresh.known(run, ['batch-a', 'batch-b']);
    expect([...known.keys()]).toEqual(['batch-a']);
    expect(known.get('batch-a')).toEqual(findings(2, 'blocked', 'b@ok.example'));
    // Another run's blob is its own.
    expect((await fresh.known(runOf(), ['batch-a'])).size).toBe(0);
  });

  it('keeps every answer of several keeps at once, and merges with what another instance wrote', async () => {
    const run = runOf();
    const one = new HookAnswers(blobs);
    await Promise.all([one.keep(run, new Map([['a', findings(1, 'x')]])), one.keep(run, new Map([['b', findings(3, 'y')]]))]);
    await new HookAnswers(blobs).keep(run, new Map([['c', new Map()]]));
    const known = await new HookAnswers(blobs).known(run, ['a', 'b', 'c']);
    expect([...known.keys()].sort()).toEqual(['a', 'b', 'c']);
    // "Every row fine" is an answer too.
    expect(known.get('c')?.size).toBe(0);
  });

  it('a blob it cannot read is as good as none, and is replaced by the next answers kept', async () => {
    const run = runOf();
    const key = hookAnswersKeyOf(run.rows_key);
    await blobs.put(key, Readable.from([Buffer.from('{"version":1,"answers":[["a",[[1,"email"]]]]}')]));
    expect((await new HookAnswers(blobs).known(run, ['a'])).size).toBe(0);
    await new HookAnswers(blobs).keep(run, new Map([['b', findings(4, 'z')]]));
    expect(JSON.parse((await readWholeBlob(blobs, key))!.toString('utf8'))).toEqual({
      version: 1,
      answers: [['b', [[4, 'email', 'z', null]]]],
    });
  });

  it('lives under the run’s keys, so the retention sweep deletes it with the run’s files', () => {
    const run = runOf();
    expect(runFileKeys(run)).toContain(`${run.rows_key}.hook-answers`);
    expect(runFileKeys({ ...run, schema: { ...run.schema, validation_url: null } })).not.toContain(`${run.rows_key}.hook-answers`);
  });
});
