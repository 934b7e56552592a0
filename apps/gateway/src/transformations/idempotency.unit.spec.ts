import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDirectory } from '@app/directory';
import { testSecretCipher } from '@app/directory/testing/test-secret-cipher';
import { ApiError } from '../http/api-error';
import { IdempotencyKeys, idempotencyKeyOf, idempotencyRequestHash } from './idempotency';

describe('IdempotencyKeys', () => {
  let store: SqliteDirectory;
  let keys: IdempotencyKeys;
  beforeEach(() => {
    store = new SqliteDirectory(join(mkdtempSync(join(tmpdir(), 'idem-unit-')), 'read.sqlite'), testSecretCipher());
    keys = new IdempotencyKeys(store);
  });
  afterEach(() => store.close());

  const created = (runId: string) => Promise.resolve({ id: runId });

  it('runs the creation once; the same request then gets the stored answer, marked as a replay', async () => {
    const create = jest.fn(created);
    const first = await keys.run('o', 'k', 'h', create);
    expect(first).toEqual({ body: { id: expect.any(String) }, replayed: false });
    expect(await keys.run('o', 'k', 'h', create)).toEqual({ body: first.body, replayed: true });
    expect(create).toHaveBeenCalledTimes(1);
    expect(create).toHaveBeenCalledWith(first.body.id, false);
  });

  it('refuses another request with the key (422 validation_failed naming the header, as the spec has every 422)', async () => {
    await keys.run('o', 'k', 'h', created);
    await expect(keys.run('o', 'k', 'other', created)).rejects.toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: 'The given data was invalid.',
      fields: { 'Idempotency-Key': [expect.any(String)] },
    });
  });

  it('answers 409 idempotency_key_in_use, with Retry-After, while the first request runs', async () => {
    let finish!: () => void;
    const slow = keys.run('o', 'k', 'h', (runId) => new Promise<{ id: string }>((resolve) => (finish = () => resolve({ id: runId }))));
    await new Promise((r) => setImmediate(r));
    await expect(keys.run('o', 'k', 'h', created)).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_in_use',
      headers: { 'Retry-After': '1' },
    });
    finish();
    const done = await slow;
    expect(await keys.run('o', 'k', 'h', created)).toEqual({ body: done.body, replayed: true });
  });

  it('a 4xx refusal forgets the key: any request may use it next', async () => {
    await expect(keys.run('o', 'k', 'h', () => Promise.reject(ApiError.validation({ x: ['bad'] })))).rejects.toMatchObject({ status: 422 });
    expect((await keys.run('o', 'k', 'another', created)).replayed).toBe(false);
  });

  it('any other failure keeps the run id: the retry of the same request resumes it; another request is refused', async () => {
    let reserved = '';
    await expect(
      keys.run('o', 'k', 'h', (runId) => {
        reserved = runId;
        return Promise.reject(new Error('event store down'));
      }),
    ).rejects.toThrow('event store down');
    await expect(keys.run('o', 'k', 'another', created)).rejects.toMatchObject({ code: 'validation_failed' });
    const create = jest.fn(created);
    expect(await keys.run('o', 'k', 'h', create)).toEqual({ body: { id: reserved }, replayed: false });
    expect(create).toHaveBeenCalledWith(reserved, true);
  });

  it('a key whose request died with its process is retried at once after the restart, creating that same run', async () => {
    const before = new IdempotencyKeys(store, { instance: 'gw-1', incarnation: 'first-start' });
    let reserved = '';
    // The request is creating its run when the process dies: its claim is never released.
    void before.run('o', 'k', 'h', (runId) => {
      reserved = runId;
      return new Promise<never>(() => undefined);
    });
    await new Promise((r) => setImmediate(r));
    expect(reserved).not.toBe('');
    // The same instance, started again (another incarnation), gets the key at once; the create resumes the same run id.
    const after = new IdempotencyKeys(store, { instance: 'gw-1', incarnation: 'second-start' });
    const create = jest.fn(created);
    expect(await after.run('o', 'k', 'h', create)).toEqual({ body: { id: reserved }, replayed: false });
    expect(create).toHaveBeenCalledWith(reserved, true);
    expect(await after.run('o', 'k', 'h', create)).toEqual({ body: { id: reserved }, replayed: true });
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('a key held by a live request of another instance (or of this process) stays in use until its lock lapses', async () => {
    const other = new IdempotencyKeys(store, { instance: 'gw-2', incarnation: 'its-start' });
    void other.run('o', 'k', 'h', () => new Promise<never>(() => undefined));
    await new Promise((r) => setImmediate(r));
    await expect(keys.run('o', 'k', 'h', created)).rejects.toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
    const same = new IdempotencyKeys(store, { instance: 'gw-2', incarnation: 'its-start' });
    await expect(same.run('o', 'k', 'h', created)).rejects.toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
  });

  it('answers with the created run even when its answer could not be stored', async () => {
    jest.spyOn(store, 'completeIdempotencyKey').mockRejectedValueOnce(new Error('disk full'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const answer = await keys.run('o', 'k', 'h', created);
    expect(answer.replayed).toBe(false);
    // The key stays claimed under its lock: the same request now gets 409 until the lock lapses.
    await expect(keys.run('o', 'k', 'h', created)).rejects.toMatchObject({ status: 409 });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('disk full'));
    warn.mockRestore();
  });
});

describe('idempotencyKeyOf', () => {
  const lines = (...values: string[]) => values.flatMap((v) => ['Idempotency-Key', v]);

  it('takes 1 to 255 printable ASCII characters; absent is undefined', () => {
    expect(idempotencyKeyOf(['Content-Type', 'application/json'])).toBeUndefined();
    for (const ok of ['a', 'k'.repeat(255), ' spaced key ', '~!@#$%^&*()_+{}|:"<>?']) expect(idempotencyKeyOf(lines(ok))).toBe(ok);
    for (const bad of ['', 'k'.repeat(256), 'caf\u00e9', 'a\tb', 'a\nb']) {
      expect(() => idempotencyKeyOf(lines(bad))).toThrow(ApiError);
    }
  });

  it('refuses the header sent twice, in any letter case (Node joined the two into one key, "x, y")', () => {
    for (const raw of [lines('x', 'y'), lines('x', 'x'), ['Idempotency-Key', 'x', 'idempotency-key', 'y']]) {
      let fields: unknown;
      try {
        idempotencyKeyOf(raw);
      } catch (err) {
        fields = (err as ApiError).fields;
      }
      expect(fields).toEqual({ 'Idempotency-Key': ['Send the Idempotency-Key header once.'] });
    }
  });
});

describe('idempotencyRequestHash', () => {
  it('ignores member order at every level, not array order; the operation counts', () => {
    const h = (op: string, body: unknown) => idempotencyRequestHash(op, body);
    expect(h('POST /a', { x: 1, y: { b: [1, 2], a: null } })).toBe(h('POST /a', { y: { a: null, b: [1, 2] }, x: 1 }));
    expect(h('POST /a', { y: [1, 2] })).not.toBe(h('POST /a', { y: [2, 1] }));
    expect(h('POST /a', { x: 1 })).not.toBe(h('POST /b', { x: 1 }));
    expect(h('POST /a', { x: '1' })).not.toBe(h('POST /a', { x: 1 }));
    expect(h('POST /a', JSON.parse('{"__proto__":{"a":1}}'))).not.toBe(h('POST /a', {}));
  });
});
