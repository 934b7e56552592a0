import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../apps/cli/src/cli-program';
import { EXIT } from '../../apps/cli/src/exit-codes';
import { call, reviewApi, setupOrganization, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * data:backup copies a running service's DATA_DIR; data:restore puts the copy into an empty
 * DATA_DIR, and a service started on it answers for the runs as the first did.
 */

/** The CLI in this process with `env` (nothing else of the test process's that would change what it does). */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { ...process.env };
  let [stdout, stderr] = ['', ''];
  const spies = [
    jest.spyOn(console, 'log').mockImplementation((...m: unknown[]) => void (stdout += `${m.join(' ')}\n`)),
    jest.spyOn(console, 'error').mockImplementation((...m: unknown[]) => void (stderr += `${m.join(' ')}\n`)),
    jest.spyOn(process.stderr, 'write').mockImplementation((m) => ((stderr += String(m)), true)),
  ];
  try {
    for (const name of ['DATA_DIR', 'EVENT_STORE', 'READ_MODEL', 'BLOB_STORE', 'BUS', 'SECRETS_KEY', 'SIGNING_SECRET'])
      delete process.env[name];
    Object.assign(process.env, env);
    return { code: await runCli(args), stdout, stderr };
  } finally {
    for (const spy of spies) spy.mockRestore();
    process.env = saved;
  }
}

/** Writes `bytes` over a file's bytes from `at` (its size unchanged). */
const overwrite = (file: string, at: number, bytes: Buffer): void => {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
};

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));

describe('data:backup and data:restore', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'backup-'));
  let first: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  const runs: { done: string; open: string; later: string } = { done: '', open: '', later: '' };
  let output: Buffer;

  const newRun = async (svc: Service, name: string) => {
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: name },
    });
    expect((await upload(created.body, 'E-mail,Name\nada@example.com,Ada\nbob@example.com,Bob\n')).status).toBe(200);
    return (await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active')) as { id: string; review_url: string };
  };

  beforeAll(async () => {
    first = await startService();
    org = await setupOrganization(first);
    const done = await newRun(first, 'done.csv');
    expect((await reviewApi(done.review_url).approve()).status).toBe(200);
    const completed = await waitForRun(first, org.apiKey, done.id, (r) => r.stage === 'final' && r.status === 'completed');
    output = Buffer.from(await (await fetch(completed.download_url)).arrayBuffer());
    runs.done = done.id;
    runs.open = (await newRun(first, 'open.csv')).id;
  });
  afterAll(() => first?.stop());

  it('copies the stores and blobs of a running service, keys apart unless asked; restores into an empty DATA_DIR only', async () => {
    const dataDir = first.config.dataDir;
    // While the service runs: without the keys (the default), then with them.
    const plain = join(tmp(), 'plain');
    const made = await cli(['data:backup', plain], { DATA_DIR: dataDir });
    expect({ code: made.code, stderr: made.stderr }).toEqual({
      code: EXIT.ok,
      stderr: expect.stringContaining('secrets.key and signing.key not copied'),
    });
    const manifest = JSON.parse(made.stdout);
    expect(manifest).toMatchObject({
      format: 1,
      data_dir: dataDir,
      stores: [{ file: 'read-model.sqlite' }, { file: 'events.sqlite' }],
      keys_included: [],
      keys_left_out: ['secrets.key', 'signing.key'],
    });
    // Both runs' uploads and the output, as files; no temporary file of the blob store.
    expect(manifest.blobs.files).toBeGreaterThanOrEqual(3);
    const copied = walk(plain);
    expect(copied.some((f) => f.includes(`${join(plain, 'blobs', 'tmp')}`))).toBe(false);
    expect(copied.filter((f) => f.endsWith('.key'))).toEqual([]);
    // Owner-only, as DATA_DIR is (docs/security.md).
    expect(copied.map((f) => statSync(f).mode & 0o777).filter((m) => m !== 0o600)).toEqual([]);
    expect(statSync(plain).mode & 0o777).toBe(0o700);

    const withKeys = join(tmp(), 'with-keys');
    const keyed = await cli(['data:backup', withKeys, '--include-keys'], { DATA_DIR: dataDir });
    expect(keyed.code).toBe(EXIT.ok);
    expect(JSON.parse(keyed.stdout)).toMatchObject({ keys_included: ['secrets.key', 'signing.key'], keys_left_out: [] });
    expect(readFileSync(join(withKeys, 'secrets.key'))).toEqual(readFileSync(join(dataDir, 'secrets.key')));
    // Into a folder that is not empty, or inside DATA_DIR: refused, nothing written.
    const again = await cli(['data:backup', withKeys], { DATA_DIR: dataDir });
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: EXIT.usage, stderr: expect.stringContaining('is not empty') });
    const inside = await cli(['data:backup', join(dataDir, 'backups')], { DATA_DIR: dataDir });
    expect({ code: inside.code, stderr: inside.stderr }).toEqual({ code: EXIT.usage, stderr: expect.stringContaining('inside DATA_DIR') });
    expect(existsSync(join(dataDir, 'backups'))).toBe(false);
    // Nor through a symbolic link that leads into it.
    const link = join(tmp(), 'link');
    symlinkSync(join(dataDir, 'blobs'), link);
    const linked = await cli(['data:backup', join(link, 'nightly')], { DATA_DIR: dataDir });
    expect({ code: linked.code, stderr: linked.stderr }).toEqual({ code: EXIT.usage, stderr: expect.stringContaining('inside DATA_DIR') });
    expect(existsSync(join(dataDir, 'blobs', 'nightly'))).toBe(false);

    // A run made after the backups is not in them.
    runs.later = (await newRun(first, 'later.csv')).id;
    await first.stop();

    // Without the key that sealed the stored secrets anywhere: refused before anything is written.
    const keyless = tmp();
    const refused = await cli(['data:restore', plain], { DATA_DIR: keyless });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: EXIT.usage,
      stderr: expect.stringContaining('holds no secrets.key'),
    });
    expect(readdirSync(keyless)).toEqual([]);
    // A manifest changed so that a key file's name leads out of DATA_DIR: refused before anything is written.
    const tampered = join(tmp(), 'tampered');
    cpSync(withKeys, tampered, { recursive: true });
    const tamperedManifest = JSON.parse(readFileSync(join(tampered, 'backup.json'), 'utf8'));
    writeFileSync(join(tampered, 'backup.json'), JSON.stringify({ ...tamperedManifest, keys_included: ['secrets.key', '../outside'] }));
    writeFileSync(join(tampered, '..', 'outside'), 'x');
    const outside = tmp();
    const forged = await cli(['data:restore', tampered], { DATA_DIR: join(outside, 'data') });
    expect({ code: forged.code, stderr: forged.stderr }).toEqual({
      code: EXIT.usage,
      stderr: expect.stringContaining('not a backup manifest'),
    });
    expect(readdirSync(outside)).toEqual([]);
    // A store's WAL left in DATA_DIR (a crash, the stores deleted by hand) would be replayed onto the copy: refused.
    const leftover = tmp();
    writeFileSync(join(leftover, 'events.sqlite-wal'), 'x');
    const replayed = await cli(['data:restore', withKeys], { DATA_DIR: leftover });
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({
      code: EXIT.usage,
      stderr: expect.stringContaining('events.sqlite-wal is there'),
    });
    expect(readdirSync(leftover)).toEqual(['events.sqlite-wal']);
    // A folder that is no finished backup.
    const notBackup = await cli(['data:restore', tmp()], { DATA_DIR: keyless });
    expect({ code: notBackup.code, stderr: notBackup.stderr }).toEqual({
      code: EXIT.usage,
      stderr: expect.stringContaining('not a finished backup'),
    });

    // A copy damaged since (a page overwritten; a file cut short): found before a service runs on it, nothing left.
    for (const [damage, message] of [
      [(file: string) => writeFileSync(file, randomBytes(100), { flag: 'r+' }), 'is damaged'],
      [(file: string) => overwrite(file, 4096, randomBytes(4096)), 'is damaged'],
      [(file: string) => truncateSync(file, statSync(file).size - 1024), "where the backup's manifest says"],
    ] as const) {
      const damaged = join(tmp(), 'damaged');
      cpSync(withKeys, damaged, { recursive: true });
      const events = join(damaged, 'events.sqlite');
      damage(events);
      const into = tmp();
      const bad = await cli(['data:restore', damaged], { DATA_DIR: into });
      expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: EXIT.failed, stderr: expect.stringContaining(message) });
      expect(readdirSync(into)).toEqual([]);
    }

    // A blob damaged, removed or added since: the restore checks each against blobs.sha256 (sha256sum's format).
    const sums = readFileSync(join(withKeys, 'blobs.sha256'), 'utf8').trim().split('\n');
    expect(sums).toHaveLength(manifest.blobs.files);
    expect(sums.filter((line) => !/^[0-9a-f]{64} {2}[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(line))).toEqual([]);
    expect(sums.filter((line) => line.includes(`  objects/runs/${runs.done}/`)).length).toBeGreaterThanOrEqual(2);
    // The format is sha256sum's: coreutils checks the backup by hand.
    expect(execFileSync('sha256sum', ['--check', '--quiet', '../blobs.sha256'], { cwd: join(withKeys, 'blobs') }).toString()).toBe('');
    const blob = (dir: string) => join(dir, 'blobs', sums.find((line) => line.includes(`  objects/runs/${runs.done}/`))!.slice(66));
    for (const [damage, message] of [
      [(dir: string) => overwrite(blob(dir), 0, Buffer.from('X')), 'is damaged: its SHA-256 is not the one'],
      [(dir: string) => rmSync(blob(dir)), 'are missing from the backup'],
      [(dir: string) => writeFileSync(join(dir, 'blobs', 'objects', 'runs', 'stray'), 'x'), 'was not backed up with the others'],
    ] as const) {
      const damaged = join(tmp(), 'damaged');
      cpSync(withKeys, damaged, { recursive: true });
      damage(damaged);
      const into = tmp();
      const bad = await cli(['data:restore', damaged], { DATA_DIR: into });
      expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: EXIT.failed, stderr: expect.stringContaining(message) });
      expect(readdirSync(into)).toEqual([]);
    }

    // Another service's secrets.key: the stored webhook secret does not open with it; nothing is restored.
    const wrongKey = tmp();
    writeFileSync(join(wrongKey, 'secrets.key'), randomBytes(32).toString('base64'), { mode: 0o600 });
    const wrong = await cli(['data:restore', plain], { DATA_DIR: wrongKey });
    expect({ code: wrong.code, stderr: wrong.stderr }).toEqual({
      code: EXIT.failed,
      stderr: expect.stringContaining('The restored secrets do not open with the key given (DATA_DIR/secrets.key'),
    });
    expect(readdirSync(wrongKey)).toEqual(['secrets.key']);

    const restoredDir = tmp();
    const restored = await cli(['data:restore', withKeys], { DATA_DIR: restoredDir });
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: EXIT.ok, stderr: expect.any(String) });
    expect(JSON.parse(restored.stdout)).toMatchObject({
      data_dir: restoredDir,
      keys: ['secrets.key', 'signing.key'],
      stores: ['read-model.sqlite', 'events.sqlite'],
      rebuilt: { runs: 2, malformed_events: 0 },
    });
    // Into a DATA_DIR that has stores: refused.
    const over = await cli(['data:restore', withKeys], { DATA_DIR: restoredDir });
    expect({ code: over.code, stderr: over.stderr }).toEqual({
      code: EXIT.usage,
      stderr: expect.stringContaining('read-model.sqlite is there'),
    });

    // The service on the restored folder: the same key, the same runs (not the later one), the same output, the open
    // review still reachable by a link signed with the restored signing key.
    const second = await startService({}, restoredDir);
    try {
      const list = await call(`${second.baseUrl}/v1/transformations?limit=10`, { token: org.apiKey });
      expect(list.status).toBe(200);
      expect(list.body.data.map((r: { id: string }) => r.id).sort()).toEqual([runs.done, runs.open].sort());
      expect((await call(`${second.baseUrl}/v1/transformations/${runs.later}`, { token: org.apiKey })).status).toBe(404);
      const done = await waitForRun(second, org.apiKey, runs.done, (r) => r.status === 'completed');
      expect(Buffer.from(await (await fetch(done.download_url)).arrayBuffer())).toEqual(output);
      const open = await waitForRun(second, org.apiKey, runs.open, (r) => r.review_state === 'active');
      const state = await reviewApi(open.review_url).state();
      expect([state.status, state.body.total_rows]).toEqual([200, 2]);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('brings the read model up to the events copied after it: a run approved between the two copies is restored approved', async () => {
    const svc = await startService();
    try {
      const own = await setupOrganization(svc);
      const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: own.apiKey,
        body: { schema_id: own.schemaId, filename: 'a.csv' },
      });
      await upload(created.body, 'E-mail,Name\nada@example.com,Ada\n');
      const ready = await waitForRun(svc, own.apiKey, created.body.id, (r) => r.review_state === 'active');
      const before = join(tmp(), 'before');
      expect((await cli(['data:backup', before, '--include-keys'], { DATA_DIR: svc.config.dataDir })).code).toBe(EXIT.ok);
      expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
      await waitForRun(svc, own.apiKey, created.body.id, (r) => r.stage === 'final' && r.status === 'completed');
      const after = join(tmp(), 'after');
      expect((await cli(['data:backup', after, '--include-keys'], { DATA_DIR: svc.config.dataDir })).code).toBe(EXIT.ok);
      await svc.stop();
      // The read model as it was before the approval, beside the events after it: the backup's copy of the read model
      // taken just before the approval's events were written (its checkpoint, in events.sqlite, is past them).
      copyFileSync(join(before, 'read-model.sqlite'), join(after, 'read-model.sqlite'));
      const afterManifest = JSON.parse(readFileSync(join(after, 'backup.json'), 'utf8'));
      afterManifest.stores[0].bytes = statSync(join(after, 'read-model.sqlite')).size;
      writeFileSync(join(after, 'backup.json'), JSON.stringify(afterManifest));
      const dataDir = tmp();
      const restored = await cli(['data:restore', after], { DATA_DIR: dataDir });
      expect(restored.code).toBe(EXIT.ok);
      expect(JSON.parse(restored.stdout).rebuilt).toEqual({ runs: 1, changed: 1, malformed_events: 0 });
      const again = await startService({}, dataDir);
      try {
        const run = await call(`${again.baseUrl}/v1/transformations/${created.body.id}`, { token: own.apiKey });
        expect([run.body.stage, run.body.status]).toEqual(['final', 'completed']);
        expect(await (await fetch(run.body.download_url)).json()).toEqual([expect.objectContaining({ email: 'ada@example.com' })]);
      } finally {
        await again.stop();
      }
    } finally {
      await svc.stop();
    }
  }, 120_000);

  it('copies consistent stores while runs are being created and uploaded: every run restored reads its own file', async () => {
    const svc = await startService();
    try {
      const own = await setupOrganization(svc);
      const busy = async (i: number) => {
        const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
          token: own.apiKey,
          body: { schema_id: own.schemaId, filename: `busy-${i}.csv` },
        });
        await upload(created.body, `E-mail,Name\nperson${i}@example.com,P${i}\n`);
      };
      const backup = join(tmp(), 'busy');
      // Three runs before the backup, twenty more written while it is taken.
      for (const i of [0, 1, 2]) await busy(i);
      const writes = Promise.all(Array.from({ length: 20 }, (_, i) => busy(i + 3)));
      const made = await cli(['data:backup', backup, '--include-keys'], { DATA_DIR: svc.config.dataDir });
      await writes;
      expect(made.code).toBe(EXIT.ok);
      await svc.stop();
      const dataDir = tmp();
      const restored = await cli(['data:restore', backup], { DATA_DIR: dataDir });
      expect({ code: restored.code, malformed: JSON.parse(restored.stdout).rebuilt.malformed_events }).toEqual({
        code: EXIT.ok,
        malformed: 0,
      });
      const again = await startService({}, dataDir);
      try {
        const list = await call(`${again.baseUrl}/v1/transformations?limit=100`, { token: own.apiKey });
        expect([list.status, list.body.data.length >= 3]).toEqual([200, true]);
        for (const run of list.body.data as Array<{ id: string; review_url: string }>) {
          // A run whose upload the copy holds reaches its review, read from the blob copied after the events.
          const now = await waitForRun(again, own.apiKey, run.id, (r) => r.status !== 'processing');
          if (now.review_state === 'active') expect((await reviewApi(now.review_url).preview()).status).toBe(200);
          else expect(now.status).toBe('awaiting_upload');
        }
      } finally {
        await again.stop();
      }
    } finally {
      await svc.stop();
    }
  }, 120_000);

  it('refuses stores that are not embedded, naming them', async () => {
    const { code, stderr } = await cli(['data:backup', join(tmp(), 'b')], {
      DATA_DIR: tmp(),
      EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false',
      BLOB_STORE: 's3',
      S3_BUCKET: 'b',
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('data:backup copies the embedded stores in DATA_DIR; these are not: EVENT_STORE=eventstoredb');
    expect(stderr).toContain('BLOB_STORE=s3');
  });
});
