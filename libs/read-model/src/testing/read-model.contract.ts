import { randomUUID } from 'node:crypto';
import type { RunState } from '@app/domain';
import type { Directory, IdempotencyRecord, RunReadModel, SchemaRecord } from '../read-model.port';

const run = (over: Partial<RunState> = {}): RunState =>
  ({ id: randomUUID(), organization_id: 'o1', revision: 0, status: 'awaiting_upload', ...over }) as unknown as RunState;
const schema = (org: string, created_at: string): SchemaRecord => ({
  id: randomUUID(),
  organization_id: org,
  name: `s-${created_at}`,
  created_at,
  updated_at: created_at,
  fields: { email: { description: 'd', data_type: 'email', is_required: true } },
});

/** Now (whole seconds): MongoDB's TTL monitor deletes idempotency records whose expiry is past on the real clock. */
const T0 = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const claimOf = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  organization_id: 'o1',
  key: 'key-1',
  request_hash: 'h1',
  resource_id: randomUUID(),
  state: 'pending',
  lock_token: randomUUID(),
  locked_until: at(60),
  response_status: null,
  response_body: null,
  created_at: T0,
  expires_at: at(86400),
  ...over,
});

/** Behaviour every read-model adapter must have. */
export function readModelContract(name: string, create: () => Promise<RunReadModel & Directory & { close(): Promise<void> }>): void {
  describe(`ReadModel contract: ${name}`, () => {
    let rm: RunReadModel & Directory & { close(): Promise<void> };
    beforeEach(async () => {
      rm = await create();
    });
    afterEach(async () => rm.close());

    it('stores a run with its checkpoint atomically and reads it back', async () => {
      const r = run();
      await rm.saveRun(r, { name: 'p', position: 3 });
      expect(await rm.getRun(r.id)).toEqual(r);
      expect(await rm.checkpoint('p')).toBe(3);
      await rm.saveRun({ ...r, revision: 1, status: 'processing' }, { name: 'p', position: 4 });
      expect(await rm.getRun(r.id)).toMatchObject({ revision: 1, status: 'processing' });
      expect(await rm.getRun(randomUUID())).toBeNull();
    });

    it('never moves a checkpoint backwards (a rebuild beside the live projector)', async () => {
      await rm.saveCheckpoint('p', 9);
      await rm.saveRun(run(), { name: 'p', position: 3 });
      await rm.saveCheckpoint('p', 5);
      expect(await rm.checkpoint('p')).toBe(9);
    });

    it('reset clears runs and the named checkpoint with its lanes, nothing else', async () => {
      const r = run();
      await rm.saveRun(r, { name: 'p', position: 9 });
      await rm.saveCheckpoint('p@3', 7);
      await rm.saveCheckpoint('px', 5);
      await rm.reset('p');
      expect(await rm.getRun(r.id)).toBeNull();
      expect(await rm.checkpoint('p')).toBe(0);
      expect(await rm.checkpoint('p@3')).toBe(0);
      expect(await rm.checkpoint('px')).toBe(5);
    });

    it('finds only live API keys by hash', async () => {
      await rm.addApiKey({ id: 'k1', organization_id: 'o1', key_hash: 'h1', prefix: 'abcdefgh', created_at: 't', revoked_at: null });
      expect((await rm.findApiKey('h1'))?.organization_id).toBe('o1');
      expect(await rm.revokeApiKey('o2', 'k1', 't2')).toBe(false);
      expect(await rm.revokeApiKey('o1', 'k1', 't2')).toBe(true);
      expect(await rm.findApiKey('h1')).toBeNull();
      expect(await rm.revokeApiKey('o1', 'k1', 't3')).toBe(false);
    });

    it("lists an organization's keys, revoked ones too, oldest first, without their hashes", async () => {
      await rm.addApiKey({ id: 'k2', organization_id: 'o1', key_hash: 'h2', prefix: 'second00', created_at: at(2), revoked_at: null });
      await rm.addApiKey({ id: 'k1', organization_id: 'o1', key_hash: 'h1', prefix: 'first000', created_at: at(1), revoked_at: null });
      await rm.addApiKey({ id: 'k3', organization_id: 'o2', key_hash: 'h3', prefix: null, created_at: at(1), revoked_at: null });
      expect(await rm.revokeApiKey('o1', 'k1', at(3))).toBe(true);
      expect(await rm.listApiKeys('o1')).toEqual([
        { id: 'k1', organization_id: 'o1', prefix: 'first000', created_at: at(1), revoked_at: at(3) },
        { id: 'k2', organization_id: 'o1', prefix: 'second00', created_at: at(2), revoked_at: null },
      ]);
      expect(await rm.listApiKeys('o2')).toEqual([{ id: 'k3', organization_id: 'o2', prefix: null, created_at: at(1), revoked_at: null }]);
      expect(await rm.listApiKeys('nobody')).toEqual([]);
      expect(await rm.findApiKey('h2')).toMatchObject({ id: 'k2', prefix: 'second00' });
    });

    describe('idempotency keys', () => {
      it('claims a free key once; a second claim gets the live record', async () => {
        const first = claimOf();
        expect(await rm.claimIdempotencyKey(first, T0)).toEqual({ claimed: true, record: first });
        for (const other of [claimOf(), claimOf({ request_hash: 'h2' })]) {
          expect(await rm.claimIdempotencyKey(other, at(1))).toEqual({ claimed: false, record: first });
        }
      });

      it('keeps the answer of the claim that holds the key, and only of that one', async () => {
        const first = claimOf();
        await rm.claimIdempotencyKey(first, T0);
        expect(await rm.completeIdempotencyKey('o1', 'key-1', 'not-the-holder', { status: 201, body: '{}' })).toBe(false);
        expect(await rm.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{"id":"r"}' })).toBe(true);
        expect(await rm.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{"id":"x"}' })).toBe(false);
        const again = await rm.claimIdempotencyKey(claimOf(), at(120));
        expect(again).toEqual({
          claimed: false,
          record: { ...first, state: 'completed', locked_until: null, response_status: 201, response_body: '{"id":"r"}' },
        });
        // A completed record is never taken over, whatever its lock said.
        await rm.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, true);
        expect((await rm.claimIdempotencyKey(claimOf(), at(121))).claimed).toBe(false);
      });

      it('a forgotten claim frees the key for any request', async () => {
        const first = claimOf();
        await rm.claimIdempotencyKey(first, T0);
        await rm.releaseIdempotencyKey('o1', 'key-1', 'not-the-holder', true);
        expect((await rm.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(1))).claimed).toBe(false);
        await rm.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, true);
        const next = claimOf({ request_hash: 'h2' });
        expect(await rm.claimIdempotencyKey(next, at(2))).toEqual({ claimed: true, record: next });
      });

      it('a lifted or lapsed lock is taken over by the same request only, which keeps the resource id', async () => {
        const first = claimOf();
        await rm.claimIdempotencyKey(first, T0);
        await rm.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, false);
        expect((await rm.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(1))).claimed).toBe(false);
        const retry = claimOf({ locked_until: at(70) });
        const taken = await rm.claimIdempotencyKey(retry, at(10));
        expect(taken).toEqual({
          claimed: true,
          record: { ...first, lock_token: retry.lock_token, locked_until: at(70) },
        });
        // Locked again: until the lock lapses, nobody else gets it; then the next retry does.
        expect((await rm.claimIdempotencyKey(claimOf(), at(69))).claimed).toBe(false);
        const late = claimOf({ locked_until: at(200) });
        expect(await rm.claimIdempotencyKey(late, at(70))).toEqual({
          claimed: true,
          record: { ...first, lock_token: late.lock_token, locked_until: at(200) },
        });
        expect(await rm.completeIdempotencyKey('o1', 'key-1', retry.lock_token!, { status: 201, body: '{}' })).toBe(false);
        expect(await rm.completeIdempotencyKey('o1', 'key-1', late.lock_token!, { status: 201, body: '{}' })).toBe(true);
      });

      it('an expired record is replaced by the next claim, whatever its request', async () => {
        const first = claimOf({ expires_at: at(100) });
        await rm.claimIdempotencyKey(first, T0);
        await rm.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{}' });
        expect((await rm.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(99))).claimed).toBe(false);
        const next = claimOf({ request_hash: 'h2', created_at: at(100), expires_at: at(200) });
        expect(await rm.claimIdempotencyKey(next, at(100))).toEqual({ claimed: true, record: next });
      });

      it('scopes keys to their organization', async () => {
        const a = claimOf();
        const b = claimOf({ organization_id: 'o2', request_hash: 'h2' });
        expect((await rm.claimIdempotencyKey(a, T0)).claimed).toBe(true);
        expect(await rm.claimIdempotencyKey(b, T0)).toEqual({ claimed: true, record: b });
      });

      it('gives a key to exactly one of many concurrent claims', async () => {
        const claims = Array.from({ length: 8 }, () => claimOf());
        const results = await Promise.all(claims.map((c) => rm.claimIdempotencyKey(c, T0)));
        const winners = results.filter((r) => r.claimed);
        expect(winners).toHaveLength(1);
        for (const r of results) expect(r.record.resource_id).toBe(winners[0].record.resource_id);
      });
    });

    it('scopes schemas to their organization and pages them in creation order', async () => {
      const a = schema('o1', '2026-01-01');
      const b = schema('o1', '2026-01-02');
      const c = schema('o1', '2026-01-03');
      const other = schema('o2', '2026-01-01');
      for (const s of [c, a, other, b]) await rm.putSchema(s);
      expect(await rm.getSchema('o2', a.id)).toBeNull();
      expect(await rm.getSchema('o1', a.id)).toEqual(a);
      const page = await rm.listSchemas('o1', 1, 1);
      expect(page).toEqual({ items: [b], total: 3 });
      expect(await rm.deleteSchema('o2', a.id)).toBe(false);
      expect(await rm.deleteSchema('o1', a.id)).toBe(true);
      expect((await rm.listSchemas('o1', 0, 10)).total).toBe(2);
    });

    it('updates an organization by patch', async () => {
      await rm.createOrganization({
        id: 'o9',
        name: 'n',
        webhook_url: null,
        webhook_secret: 's',
        review_preparation_quota: null,
        review_preparations_used: 0,
        created_at: 't',
        updated_at: 't',
      });
      const updated = await rm.updateOrganization('o9', { webhook_url: 'https://x.test/h' });
      expect(updated).toMatchObject({ id: 'o9', name: 'n', webhook_url: 'https://x.test/h' });
      expect(await rm.getOrganization('o9')).toMatchObject({ webhook_url: 'https://x.test/h' });
      expect(await rm.updateOrganization('missing', { name: 'x' })).toBeNull();
    });

    it('lists runs whose webhook attempt is due, earliest first', async () => {
      const base = run();
      await rm.saveRun({ ...base, id: 'w1', webhook_due_at: '2026-01-01T00:00:05.000Z' }, { name: 'runs', position: 1 });
      await rm.saveRun({ ...base, id: 'w2', webhook_due_at: '2026-01-01T00:00:01.000Z' }, { name: 'runs', position: 2 });
      await rm.saveRun({ ...base, id: 'w3', webhook_due_at: null }, { name: 'runs', position: 3 });
      expect(await rm.listDueWebhooks('2026-01-01T00:00:10.000Z', 10)).toEqual(['w2', 'w1']);
      expect(await rm.listDueWebhooks('2026-01-01T00:00:02.000Z', 10)).toEqual(['w2']);
      await rm.saveRun({ ...base, id: 'w2', webhook_due_at: null }, { name: 'runs', position: 4 });
      expect(await rm.listDueWebhooks('2026-01-01T00:00:10.000Z', 10)).toEqual(['w1']);
    });

    it('lists runs waiting for an upload whose window has not ended, until the upload', async () => {
      const waiting = { ...run(), status: 'awaiting_upload', source_uploaded: false };
      await rm.saveRun({ ...waiting, id: 'u1', upload_expires_at: '2026-01-01T01:00:00.000Z' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...waiting, id: 'u2', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, { name: 'runs', position: 2 });
      await rm.saveRun({ ...waiting, id: 'u3', upload_expires_at: '2025-12-31T00:00:00.000Z' } as never, { name: 'runs', position: 3 });
      expect(await rm.listAwaitingUpload('2026-01-01T00:00:00.000Z', 10)).toEqual(['u2', 'u1']);
      await rm.saveRun(
        { ...waiting, id: 'u2', status: 'processing', source_uploaded: true, upload_expires_at: '2026-01-01T00:30:00.000Z' } as never,
        { name: 'runs', position: 4 },
      );
      expect(await rm.listAwaitingUpload('2026-01-01T00:00:00.000Z', 10)).toEqual(['u1']);
    });

    it('lists runs whose upload window ended without an upload, until they move on', async () => {
      const waiting = { ...run(), status: 'awaiting_upload', source_uploaded: false };
      await rm.saveRun({ ...waiting, id: 'o1', upload_expires_at: '2026-01-01T01:00:00.000Z' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...waiting, id: 'o2', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, { name: 'runs', position: 2 });
      await rm.saveRun({ ...waiting, id: 'o3', upload_expires_at: '2026-01-01T02:00:00.000Z' } as never, { name: 'runs', position: 3 });
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 10)).toEqual(['o2', 'o1']);
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 1)).toEqual(['o2']);
      await rm.saveRun({ ...waiting, id: 'o2', status: 'failed', upload_expires_at: '2026-01-01T00:30:00.000Z' } as never, {
        name: 'runs',
        position: 4,
      });
      expect(await rm.listUploadsOverdue('2026-01-01T01:00:00.000Z', 10)).toEqual(['o1']);
    });

    it('lists runs whose files are due for deletion: outputs past retention, closed runs past the cutoff, not purged ones', async () => {
      const base = { ...run(), status: 'completed', stage: 'review', review_state: null, files_purged_at: null };
      const output = { ...base, stage: 'final', file_retention_until: '2026-01-10T00:00:00.000Z' };
      await rm.saveRun({ ...output, id: 'p1' } as never, { name: 'runs', position: 1 });
      await rm.saveRun({ ...base, id: 'p2', review_state: 'canceled', review_canceled_at: '2026-01-01T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 2,
      });
      await rm.saveRun({ ...base, id: 'p3', status: 'failed', failed_at: '2026-01-02T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 3,
      });
      await rm.saveRun({ ...base, id: 'p4', review_state: 'active', review_expires_at: '2026-01-03T00:00:00.000Z' } as never, {
        name: 'runs',
        position: 4,
      });
      await rm.saveRun({ ...base, id: 'p5', status: 'processing', stage: 'final', review_state: 'approved' } as never, {
        name: 'runs',
        position: 5,
      });
      // Outputs by their own deadline, closed runs by the cutoff (now minus the retention).
      expect(await rm.listFilesToPurge('2026-01-10T00:00:00.000Z', '2026-01-02T12:00:00.000Z', 10)).toEqual(['p2', 'p3', 'p1']);
      expect(await rm.listFilesToPurge('2026-01-09T00:00:00.000Z', '2026-01-05T00:00:00.000Z', 10)).toEqual(['p2', 'p3', 'p4']);
      expect(await rm.listFilesToPurge('2026-01-09T00:00:00.000Z', '2026-01-05T00:00:00.000Z', 2)).toEqual(['p2', 'p3']);
      await rm.saveRun({ ...output, id: 'p1', files_purged_at: '2026-01-11T00:00:00.000Z' } as never, { name: 'runs', position: 6 });
      await rm.saveRun(
        { ...base, id: 'p2', review_state: 'canceled', review_canceled_at: '2026-01-01T00:00:00.000Z', files_purged_at: 'x' } as never,
        { name: 'runs', position: 7 },
      );
      expect(await rm.listFilesToPurge('2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', 10)).toEqual(['p3', 'p4']);
    });

    it('consumes review-preparation quota once per run and never past the limit', async () => {
      await rm.createOrganization({
        id: 'oq',
        name: 'n',
        webhook_url: null,
        webhook_secret: 's',
        review_preparation_quota: 2,
        review_preparations_used: 0,
        created_at: 't',
        updated_at: 't',
      });
      expect(await rm.consumeReviewPreparation('oq', 'run-1')).toBe('consumed');
      expect(await rm.consumeReviewPreparation('oq', 'run-1')).toBe('already');
      expect(await rm.consumeReviewPreparation('oq', 'run-2')).toBe('consumed');
      expect(await rm.consumeReviewPreparation('oq', 'run-3')).toBe('exhausted');
      expect((await rm.getOrganization('oq'))!.review_preparations_used).toBe(2);
      await rm.updateOrganization('oq', { review_preparation_quota: null });
      expect(await rm.consumeReviewPreparation('oq', 'run-3')).toBe('consumed');
      expect(await rm.consumeReviewPreparation('nobody', 'run-4')).toBe('no_organization');
    });

    it('gives back webhook secrets and provider API keys as written (they are stored encrypted)', async () => {
      const org = {
        id: 'os',
        name: 'n',
        webhook_url: null,
        webhook_secret: 'whsec_contract-secret',
        review_preparation_quota: 1,
        review_preparations_used: 0,
        created_at: 't',
        updated_at: 't',
      };
      await rm.createOrganization(org);
      expect((await rm.getOrganization('os'))!.webhook_secret).toBe('whsec_contract-secret');
      expect((await rm.updateOrganization('os', { name: 'renamed' }))!.webhook_secret).toBe('whsec_contract-secret');
      expect(await rm.consumeReviewPreparation('os', 'run-s')).toBe('consumed');
      expect((await rm.updateOrganization('os', { webhook_secret: 'whsec_rotated' }))!.webhook_secret).toBe('whsec_rotated');
      expect(await rm.getOrganization('os')).toMatchObject({
        name: 'renamed',
        webhook_secret: 'whsec_rotated',
        review_preparations_used: 1,
      });

      const provider = {
        id: randomUUID(),
        organization_id: 'os',
        name: 'p',
        provider: 'openai',
        model: 'm',
        model_label: null,
        api_key: 'sk-contract-key',
        base_url: null,
        created_at: 't',
        updated_at: 't',
      };
      await rm.putProvider(provider);
      await rm.putProvider({ ...provider, id: randomUUID(), created_at: 'u', api_key: null });
      expect(await rm.getProvider('os', provider.id)).toEqual(provider);
      expect((await rm.listProviders('os', 0, 10)).items.map((p) => p.api_key)).toEqual(['sk-contract-key', null]);
      await rm.putProvider({ ...provider, api_key: 'sk-replaced' });
      expect((await rm.getProvider('os', provider.id))!.api_key).toBe('sk-replaced');
    });
  });
}
