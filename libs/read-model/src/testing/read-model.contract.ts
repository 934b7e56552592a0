import { randomUUID } from 'node:crypto';
import type { RunState } from '@app/domain';
import type { Directory, RunReadModel, SchemaRecord } from '../read-model.port';

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
      await rm.addApiKey({ id: 'k1', organization_id: 'o1', key_hash: 'h1', created_at: 't', revoked_at: null });
      expect((await rm.findApiKey('h1'))?.organization_id).toBe('o1');
      expect(await rm.revokeApiKey('o2', 'k1', 't2')).toBe(false);
      expect(await rm.revokeApiKey('o1', 'k1', 't2')).toBe(true);
      expect(await rm.findApiKey('h1')).toBeNull();
      expect(await rm.revokeApiKey('o1', 'k1', 't3')).toBe(false);
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
  });
}
