import { randomUUID } from 'node:crypto';
import type { Directory, IdempotencyRecord, SchemaRecord } from '../directory.port';

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
  lock_instance: 'gateway-a',
  lock_incarnation: 'incarnation-1',
  response_status: null,
  response_body: null,
  created_at: T0,
  expires_at: at(86400),
  ...over,
});

/** Behaviour every directory adapter must have. */
export function directoryContract(name: string, create: () => Promise<Directory & { close(): Promise<void> }>): void {
  describe(`Directory contract: ${name}`, () => {
    let directory: Directory & { close(): Promise<void> };
    beforeEach(async () => {
      directory = await create();
    });
    afterEach(async () => directory.close());

    it('finds only live API keys by hash', async () => {
      await directory.addApiKey({ id: 'k1', organization_id: 'o1', key_hash: 'h1', prefix: 'abcdefgh', created_at: 't', revoked_at: null });
      expect(await directory.findApiKey('h1')).toMatchObject({
        id: 'k1',
        organization_id: 'o1',
        key_hash: 'h1',
        prefix: 'abcdefgh',
        created_at: 't',
        revoked_at: null,
      });
      expect(await directory.revokeApiKey('o2', 'k1', 't2')).toBe(false);
      expect(await directory.revokeApiKey('o1', 'k1', 't2')).toBe(true);
      expect(await directory.findApiKey('h1')).toBeNull();
      expect(await directory.revokeApiKey('o1', 'k1', 't3')).toBe(false);
    });

    it("keeps a key's last use, only moving forward and only for its organization", async () => {
      await directory.addApiKey({
        id: 'u1',
        organization_id: 'o1',
        key_hash: 'hu1',
        prefix: 'used0000',
        created_at: at(1),
        revoked_at: null,
      });
      const lastUse = async () => (await directory.listApiKeys('o1')).find((k) => k.id === 'u1')?.last_used_at;
      expect(await lastUse()).toBeNull();
      await directory.touchApiKey('o1', 'u1', at(5));
      expect(await lastUse()).toBe(at(5));
      await directory.touchApiKey('o1', 'u1', at(4));
      expect(await lastUse()).toBe(at(5));
      await directory.touchApiKey('o2', 'u1', at(9));
      expect(await lastUse()).toBe(at(5));
    });

    it('keeps the name a key was issued with', async () => {
      await directory.addApiKey({
        id: 'n1',
        organization_id: 'o1',
        key_hash: 'hn1',
        prefix: 'named000',
        name: 'Billing export',
        created_at: at(1),
        revoked_at: null,
      });
      expect((await directory.listApiKeys('o1')).find((k) => k.id === 'n1')?.name).toBe('Billing export');
    });

    it("lists an organization's keys, revoked ones too, oldest first, without their hashes", async () => {
      await directory.addApiKey({
        id: 'k2',
        organization_id: 'o1',
        key_hash: 'h2',
        prefix: 'second00',
        created_at: at(2),
        revoked_at: null,
      });
      await directory.addApiKey({
        id: 'k1',
        organization_id: 'o1',
        key_hash: 'h1',
        prefix: 'first000',
        created_at: at(1),
        revoked_at: null,
      });
      await directory.addApiKey({ id: 'k3', organization_id: 'o2', key_hash: 'h3', prefix: null, created_at: at(1), revoked_at: null });
      expect(await directory.revokeApiKey('o1', 'k1', at(3))).toBe(true);
      expect(await directory.listApiKeys('o1')).toEqual([
        { id: 'k1', organization_id: 'o1', prefix: 'first000', name: null, created_at: at(1), revoked_at: at(3), last_used_at: null },
        { id: 'k2', organization_id: 'o1', prefix: 'second00', name: null, created_at: at(2), revoked_at: null, last_used_at: null },
      ]);
      expect(await directory.listApiKeys('o2')).toEqual([
        { id: 'k3', organization_id: 'o2', prefix: null, name: null, created_at: at(1), revoked_at: null, last_used_at: null },
      ]);
      expect(await directory.listApiKeys('nobody')).toEqual([]);
      expect(await directory.findApiKey('h2')).toMatchObject({ id: 'k2', prefix: 'second00' });
    });

    describe('idempotency keys', () => {
      it('claims a free key once; a second claim gets the live record', async () => {
        const first = claimOf();
        expect(await directory.claimIdempotencyKey(first, T0)).toEqual({ claimed: true, record: first });
        for (const other of [claimOf(), claimOf({ request_hash: 'h2' })]) {
          expect(await directory.claimIdempotencyKey(other, at(1))).toEqual({ claimed: false, record: first });
        }
      });

      it('keeps the answer of the claim that holds the key, and only of that one', async () => {
        const first = claimOf();
        await directory.claimIdempotencyKey(first, T0);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', 'not-the-holder', { status: 201, body: '{}' })).toBe(false);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{"id":"r"}' })).toBe(true);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{"id":"x"}' })).toBe(false);
        const again = await directory.claimIdempotencyKey(claimOf(), at(120));
        expect(again).toEqual({
          claimed: false,
          record: { ...first, state: 'completed', locked_until: null, response_status: 201, response_body: '{"id":"r"}' },
        });
        // A completed record is never taken over, whatever its lock said.
        await directory.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, true);
        expect((await directory.claimIdempotencyKey(claimOf(), at(121))).claimed).toBe(false);
      });

      it('a forgotten claim frees the key for any request', async () => {
        const first = claimOf();
        await directory.claimIdempotencyKey(first, T0);
        await directory.releaseIdempotencyKey('o1', 'key-1', 'not-the-holder', true);
        expect((await directory.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(1))).claimed).toBe(false);
        await directory.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, true);
        const next = claimOf({ request_hash: 'h2' });
        expect(await directory.claimIdempotencyKey(next, at(2))).toEqual({ claimed: true, record: next });
      });

      it('a lifted or lapsed lock is taken over by the same request only, which keeps the resource id', async () => {
        const first = claimOf();
        await directory.claimIdempotencyKey(first, T0);
        await directory.releaseIdempotencyKey('o1', 'key-1', first.lock_token!, false);
        expect((await directory.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(1))).claimed).toBe(false);
        const retry = claimOf({ locked_until: at(70) });
        const taken = await directory.claimIdempotencyKey(retry, at(10));
        expect(taken).toEqual({
          claimed: true,
          record: { ...first, lock_token: retry.lock_token, locked_until: at(70) },
        });
        // Locked again: until the lock lapses, nobody else gets it; then the next retry does.
        expect((await directory.claimIdempotencyKey(claimOf(), at(69))).claimed).toBe(false);
        const late = claimOf({ locked_until: at(200) });
        expect(await directory.claimIdempotencyKey(late, at(70))).toEqual({
          claimed: true,
          record: { ...first, lock_token: late.lock_token, locked_until: at(200) },
        });
        expect(await directory.completeIdempotencyKey('o1', 'key-1', retry.lock_token!, { status: 201, body: '{}' })).toBe(false);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', late.lock_token!, { status: 201, body: '{}' })).toBe(true);
      });

      it('a claim whose holder died (its instance runs under another incarnation now) is taken over at once by the same request', async () => {
        const first = claimOf();
        await directory.claimIdempotencyKey(first, T0);
        // The same live process (same incarnation) or another instance: the lock holds until it lapses.
        expect((await directory.claimIdempotencyKey(claimOf(), at(1))).claimed).toBe(false);
        expect((await directory.claimIdempotencyKey(claimOf({ lock_instance: 'gateway-b', lock_incarnation: 'x' }), at(1))).claimed).toBe(
          false,
        );
        // Another request is still refused, whoever asks.
        expect(
          (await directory.claimIdempotencyKey(claimOf({ request_hash: 'h2', lock_incarnation: 'incarnation-2' }), at(1))).claimed,
        ).toBe(false);
        // The instance restarted: its new incarnation takes the key over well before the lock lapses, keeping the resource id.
        const restarted = claimOf({ lock_incarnation: 'incarnation-2', locked_until: at(62) });
        expect(await directory.claimIdempotencyKey(restarted, at(2))).toEqual({
          claimed: true,
          record: { ...first, lock_token: restarted.lock_token, locked_until: at(62), lock_incarnation: 'incarnation-2' },
        });
        // Now the new incarnation holds it: its own concurrent retry does not take it, and the dead one cannot finish it.
        expect((await directory.claimIdempotencyKey(claimOf({ lock_incarnation: 'incarnation-2' }), at(3))).claimed).toBe(false);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{}' })).toBe(false);
        expect(await directory.completeIdempotencyKey('o1', 'key-1', restarted.lock_token!, { status: 201, body: '{}' })).toBe(true);
      });

      it('a dead holder hands the key to exactly one of many concurrent retries', async () => {
        await directory.claimIdempotencyKey(claimOf(), T0);
        const retries = Array.from({ length: 8 }, () => claimOf({ lock_incarnation: 'incarnation-2' }));
        const results = await Promise.all(retries.map((c) => directory.claimIdempotencyKey(c, at(1))));
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
      });

      it('an expired record is replaced by the next claim, whatever its request', async () => {
        const first = claimOf({ expires_at: at(100) });
        await directory.claimIdempotencyKey(first, T0);
        await directory.completeIdempotencyKey('o1', 'key-1', first.lock_token!, { status: 201, body: '{}' });
        expect((await directory.claimIdempotencyKey(claimOf({ request_hash: 'h2' }), at(99))).claimed).toBe(false);
        const next = claimOf({ request_hash: 'h2', created_at: at(100), expires_at: at(200) });
        expect(await directory.claimIdempotencyKey(next, at(100))).toEqual({ claimed: true, record: next });
      });

      it('scopes keys to their organization', async () => {
        const a = claimOf();
        const b = claimOf({ organization_id: 'o2', request_hash: 'h2' });
        expect((await directory.claimIdempotencyKey(a, T0)).claimed).toBe(true);
        expect(await directory.claimIdempotencyKey(b, T0)).toEqual({ claimed: true, record: b });
      });

      it('gives a key to exactly one of many concurrent claims', async () => {
        const claims = Array.from({ length: 8 }, () => claimOf());
        const results = await Promise.all(claims.map((c) => directory.claimIdempotencyKey(c, T0)));
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
      for (const s of [c, a, other, b]) await directory.putSchema(s);
      expect(await directory.getSchema('o2', a.id)).toBeNull();
      expect(await directory.getSchema('o1', a.id)).toEqual(a);
      const page = await directory.listSchemas('o1', 1, 1);
      expect(page).toEqual({ items: [b], total: 3 });
      expect(await directory.deleteSchema('o2', a.id)).toBe(false);
      expect(await directory.deleteSchema('o1', a.id)).toBe(true);
      expect((await directory.listSchemas('o1', 0, 10)).total).toBe(2);
    });

    it('remembers the latest approved mapping per organization, schema and headers; an older approval does not replace it', async () => {
      const remembered = (approved_at: string, column: string) => ({
        organization_id: 'o1',
        schema_id: 's1',
        headers_key: 'h1',
        mapping_rule: { email: column },
        picklists: { tier: { 'Plat.': 'platinum' } },
        run_id: `r-${approved_at}`,
        approved_at,
      });
      expect(await directory.findRememberedMapping('o1', 's1', 'h1')).toBeNull();
      await directory.rememberMapping(remembered('2026-01-02T00:00:00.000Z', 'Mail'));
      await directory.rememberMapping(remembered('2026-01-01T00:00:00.000Z', 'Old'));
      expect(await directory.findRememberedMapping('o1', 's1', 'h1')).toEqual(remembered('2026-01-02T00:00:00.000Z', 'Mail'));
      await directory.rememberMapping(remembered('2026-01-03T00:00:00.000Z', 'E-mail'));
      expect((await directory.findRememberedMapping('o1', 's1', 'h1'))?.mapping_rule).toEqual({ email: 'E-mail' });
      expect(await directory.findRememberedMapping('o2', 's1', 'h1')).toBeNull();
      expect(await directory.findRememberedMapping('o1', 's1', 'h2')).toBeNull();
      // Deleting the schema forgets them (they hold values from customers' files).
      await directory.deleteSchema('o1', 's1');
      expect(await directory.findRememberedMapping('o1', 's1', 'h1')).toBeNull();
    });

    it('updates an organization by patch', async () => {
      await directory.createOrganization({
        id: 'o9',
        name: 'n',
        webhook_url: null,
        webhook_secret: 's',
        review_preparation_quota: null,
        review_preparations_used: 0,
        created_at: 't',
        updated_at: 't',
      });
      const updated = await directory.updateOrganization('o9', { webhook_url: 'https://x.test/h' });
      expect(updated).toMatchObject({ id: 'o9', name: 'n', webhook_url: 'https://x.test/h' });
      expect(await directory.getOrganization('o9')).toMatchObject({ webhook_url: 'https://x.test/h' });
      expect(await directory.updateOrganization('missing', { name: 'x' })).toBeNull();
    });

    it('consumes review-preparation quota once per run and never past the limit', async () => {
      await directory.createOrganization({
        id: 'oq',
        name: 'n',
        webhook_url: null,
        webhook_secret: 's',
        review_preparation_quota: 2,
        review_preparations_used: 0,
        created_at: 't',
        updated_at: 't',
      });
      expect(await directory.consumeReviewPreparation('oq', 'run-1')).toBe('consumed');
      expect(await directory.consumeReviewPreparation('oq', 'run-1')).toBe('already');
      expect(await directory.consumeReviewPreparation('oq', 'run-2')).toBe('consumed');
      expect(await directory.consumeReviewPreparation('oq', 'run-3')).toBe('exhausted');
      expect((await directory.getOrganization('oq'))!.review_preparations_used).toBe(2);
      await directory.updateOrganization('oq', { review_preparation_quota: null });
      expect(await directory.consumeReviewPreparation('oq', 'run-3')).toBe('consumed');
      expect(await directory.consumeReviewPreparation('nobody', 'run-4')).toBe('no_organization');
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
      await directory.createOrganization(org);
      expect((await directory.getOrganization('os'))!.webhook_secret).toBe('whsec_contract-secret');
      expect((await directory.updateOrganization('os', { name: 'renamed' }))!.webhook_secret).toBe('whsec_contract-secret');
      expect(await directory.consumeReviewPreparation('os', 'run-s')).toBe('consumed');
      expect((await directory.updateOrganization('os', { webhook_secret: 'whsec_rotated' }))!.webhook_secret).toBe('whsec_rotated');
      expect(await directory.getOrganization('os')).toMatchObject({
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
      await directory.putProvider(provider);
      await directory.putProvider({ ...provider, id: randomUUID(), created_at: 'u', api_key: null });
      expect(await directory.getProvider('os', provider.id)).toEqual(provider);
      expect((await directory.listProviders('os', 0, 10)).items.map((p) => p.api_key)).toEqual(['sk-contract-key', null]);
      await directory.putProvider({ ...provider, api_key: 'sk-replaced' });
      expect((await directory.getProvider('os', provider.id))!.api_key).toBe('sk-replaced');
    });
  });
}
