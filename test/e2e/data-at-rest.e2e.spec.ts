import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reencryptStoredSecrets } from '../../apps/cli/src/operator/operator-actions';
import { FakeVendor, OPENAI_KEY } from '../support/fake-vendor';
import { ADMIN_TOKEN, PEOPLE_FIELDS, call, reviewApi, startService, upload, waitForRun, type Service } from '../support/service-harness';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What a real service leaves in DATA_DIR after runs: every directory 0700 and every file
 * 0600, and no webhook secret or vendor API key in any file's bytes. Then a rotation of
 * SECRETS_KEY: the old key still opens the secrets, the operator's re-encryption moves
 * them to the new key, and the old key can go.
 */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? [join(dir, e.name), ...walk(join(dir, e.name))] : [join(dir, e.name)],
  );
}

describe('data at rest', () => {
  let vendor: FakeVendor;
  let receiver: WebhookReceiver;
  let dir: string;
  let svc: Service | null = null;
  const secrets = { webhook: [] as string[], apiKey: '' };
  let org: { id: string; apiKey: string; schemaId: string; providerId: string };

  beforeAll(async () => {
    vendor = new FakeVendor();
    await vendor.start();
    vendor.answer = () => ({ records: [{ email: 'ada@example.com', first_name: 'Ada', age: '36', born: null }] });
    receiver = new WebhookReceiver();
    await receiver.start();
    dir = mkdtempSync(join(tmpdir(), 'svc-at-rest-'));
  });
  afterAll(async () => {
    await svc?.stop();
    await vendor?.stop();
    await receiver?.stop();
  });

  const admin = (s: Service, path: string, body?: unknown, method?: string) =>
    call(`${s.baseUrl}/admin/v1/organizations${path}`, { token: ADMIN_TOKEN, body, method });

  /** A raw run through the provider, approved: the vendor must get the right key, the webhook the right secret. */
  async function runThroughProviderAndWebhook(s: Service): Promise<void> {
    vendor.reset();
    const created = await call(`${s.baseUrl}/v1/transformations/raw`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, content: 'Ada, 36', provider_id: org.providerId },
    });
    const ready = await waitForRun(s, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(vendor.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${OPENAI_KEY}`]);
    expect((await reviewApi(ready.review_url).approve()).status).toBe(200);
    await waitForRun(s, org.apiKey, created.body.id, (r) => r.notification_status === 'delivered');
    const delivered = receiver.received.filter((r) => r.body.includes(created.body.id));
    expect(delivered.map((r) => r.headers['x-service-webhook-secret'])).toEqual([secrets.webhook.at(-1)]);
  }

  it('after runs, DATA_DIR holds only owner-only directories and files, and no secret in clear', async () => {
    const running = await startService({}, dir);
    svc = running;
    const created = await admin(svc, '', { name: 'Acme', webhook_url: receiver.url });
    secrets.webhook.push(created.body.webhook_secret);
    const rotated = await admin(svc, `/${created.body.id}/webhook/rotate-secret`, {});
    secrets.webhook.push(rotated.body.webhook_secret);
    const schema = await admin(svc, `/${created.body.id}/schemas`, { name: 'People', fields: PEOPLE_FIELDS });
    const provider = await admin(svc, `/${created.body.id}/providers`, {
      name: 'p',
      provider: 'openai',
      model: 'm',
      api_key: OPENAI_KEY,
      base_url: `${vendor.baseUrl}/v1`,
    });
    secrets.apiKey = OPENAI_KEY;
    org = { id: created.body.id, apiKey: created.body.api_key, schemaId: schema.body.data.id, providerId: provider.body.data.id };

    await runThroughProviderAndWebhook(svc);
    const file = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'p.csv' },
    });
    await upload(file.body, 'E-mail,Age\nada@example.com,36\n');
    const ready = await waitForRun(svc, org.apiKey, file.body.id, (r) => r.review_state === 'active');
    await reviewApi(ready.review_url).approve();
    await waitForRun(svc, org.apiKey, file.body.id, (r) => r.stage === 'final' && r.status === 'completed');

    // While running (the WAL files exist) and after a stop.
    for (const phase of ['running', 'stopped']) {
      if (phase === 'stopped') {
        await running.stop();
        svc = null;
      }
      const entries = walk(dir);
      const names = entries.map((p) => p.slice(dir.length + 1));
      expect(names).toEqual(expect.arrayContaining(['events.sqlite', 'read-model.sqlite', 'signing.key', 'secrets.key', 'blobs']));
      expect(names.some((n) => n.startsWith('blobs/objects/runs/'))).toBe(true);
      for (const p of entries) {
        const expected = statSync(p).isDirectory() ? '700' : '600';
        expect({ phase, p, mode: (statSync(p).mode & 0o777).toString(8) }).toEqual({ phase, p, mode: expected });
      }
      for (const p of entries.filter((e) => statSync(e).isFile())) {
        const bytes = readFileSync(p);
        for (const secret of [...secrets.webhook, secrets.apiKey, org.apiKey]) {
          expect({ phase, p, found: bytes.includes(Buffer.from(secret)) }).toEqual({ phase, p, found: false });
        }
      }
    }
  });

  it('a SECRETS_KEY rotation: the old key still opens, re-encryption moves everything to the new key, then the old key can go', async () => {
    const newKey = randomBytes(32).toString('base64');
    // SECRETS_KEY set beside the generated DATA_DIR/secrets.key: the file's key is kept as a previous key.
    svc = await startService({ SECRETS_KEY: newKey }, dir);
    await runThroughProviderAndWebhook(svc);
    await svc.stop();
    svc = null;

    // The operator's command, as `npm run cli -- secrets:reencrypt` runs it.
    const saved = { DATA_DIR: process.env.DATA_DIR, SECRETS_KEY: process.env.SECRETS_KEY };
    const printed: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    try {
      Object.assign(process.env, { DATA_DIR: dir, SECRETS_KEY: newKey });
      await reencryptStoredSecrets({ dryRun: true });
      await reencryptStoredSecrets({});
      await reencryptStoredSecrets({});
    } finally {
      log.mockRestore();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(printed.map((p) => JSON.parse(p))).toEqual([
      { dry_run: true, key_id: expect.any(String), organizations: 1, providers: 1 },
      { dry_run: false, key_id: expect.any(String), organizations: 1, providers: 1 },
      { dry_run: false, key_id: expect.any(String), organizations: 0, providers: 0 },
    ]);

    rmSync(join(dir, 'secrets.key')); // the old key is gone
    svc = await startService({ SECRETS_KEY: newKey }, dir);
    await runThroughProviderAndWebhook(svc);
    await svc.stop();
    svc = null;

    // Without the key that sealed them, the secrets do not open: a generic 500 (the key id is in the
    // server log), nothing is sent; a new webhook secret can still be issued.
    svc = await startService({ SECRETS_KEY: randomBytes(32).toString('base64') }, dir);
    vendor.reset();
    const created = await call(`${svc.baseUrl}/v1/transformations/raw`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, content: 'Ada', provider_id: org.providerId },
    });
    expect(created.status).toBe(500);
    expect(created.body.error).toMatchObject({ code: 'internal_error', type: 'server' });
    expect(vendor.requests).toHaveLength(0);
    const reissued = await admin(svc, `/${org.id}/webhook/rotate-secret`, {});
    expect(reissued.status).toBe(200);
    expect(reissued.body.webhook_secret).toMatch(/^whsec_/);
  });
});
