import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSecretsKey } from '@app/config';
import type { Organization, ProviderRecord } from '../directory.port';
import { SecretCipher } from '../secrets/secret-cipher';
import { SqliteDirectory } from './sqlite-directory';

/**
 * Provider API keys and webhook secrets in read-model.sqlite: never in the files in clear,
 * read back as they were written, legacy plaintext rows still read and sealed when written,
 * and a key rotation followed by the operator's re-encryption.
 */
const newKey = () => parseSecretsKey(randomBytes(32).toString('base64'), 'k');
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const API_KEY = `sk-proj-${randomBytes(20).toString('hex')}`;
const now = '2026-01-01T00:00:00.000Z';

const org = (id: string, secret = WEBHOOK_SECRET): Organization => ({
  id,
  name: 'Acme',
  webhook_url: null,
  webhook_secret: secret,
  review_preparation_quota: null,
  review_preparations_used: 0,
  created_at: now,
  updated_at: now,
});
const provider = (id: string, apiKey: string | null = API_KEY): ProviderRecord => ({
  id,
  organization_id: 'o1',
  name: 'p',
  provider: 'openai',
  model: 'm',
  model_label: null,
  api_key: apiKey,
  base_url: null,
  created_at: now,
  updated_at: now,
});

/** Every byte SQLite keeps for the database: the file, its WAL and shared memory. */
function fileBytes(file: string): Buffer {
  return Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
}
const contains = (bytes: Buffer, text: string) => bytes.includes(Buffer.from(text, 'utf8'));

describe('SQLite directory: secrets at rest', () => {
  let file: string;
  beforeEach(() => {
    file = join(mkdtempSync(join(tmpdir(), 'directory-secrets-')), 'read-model.sqlite');
  });

  it('stores webhook secrets and API keys sealed, and reads them back', async () => {
    const k = newKey();
    const directory = new SqliteDirectory(file, new SecretCipher({ current: k, previous: [] }));
    await directory.createOrganization(org('o1'));
    await directory.putProvider(provider('p1'));
    await directory.putProvider(provider('p2', null));
    const rotated = `whsec_${randomBytes(24).toString('base64')}`;
    expect((await directory.updateOrganization('o1', { webhook_secret: rotated }))!.webhook_secret).toBe(rotated);
    expect((await directory.updateOrganization('o1', { webhook_url: 'https://hooks.example.com/h' }))!.webhook_secret).toBe(rotated);
    expect(await directory.consumeReviewPreparation('o1', 'run-1')).toBe('consumed');

    expect((await directory.getOrganization('o1'))!.webhook_secret).toBe(rotated);
    expect((await directory.getProvider('o1', 'p1'))!.api_key).toBe(API_KEY);
    expect((await directory.getProvider('o1', 'p2'))!.api_key).toBeNull();
    expect((await directory.listProviders('o1', 0, 10)).items.map((p) => p.api_key)).toEqual([API_KEY, null]);

    // In the files (while open: the WAL holds the latest pages) and after closing.
    for (const secret of [WEBHOOK_SECRET, rotated, API_KEY])
      expect({ secret, inFile: contains(fileBytes(file), secret) }).toEqual({ secret, inFile: false });
    await directory.close();
    const bytes = fileBytes(file);
    expect(contains(bytes, 'enc:v1:')).toBe(true);
    for (const secret of [WEBHOOK_SECRET, rotated, API_KEY])
      expect({ secret, inFile: contains(bytes, secret) }).toEqual({ secret, inFile: false });

    const raw = new Database(file, { readonly: true });
    const stored = JSON.parse(raw.prepare<[], { doc: string }>("SELECT doc FROM providers WHERE id = 'p1'").get()!.doc);
    raw.close();
    expect(stored).toMatchObject({ id: 'p1', model: 'm', api_key: expect.stringMatching(new RegExp(`^enc:v1:${k.id}:`)) });

    // A reopened directory with the same key reads everything.
    const again = new SqliteDirectory(file, new SecretCipher({ current: k, previous: [] }));
    expect((await again.getOrganization('o1'))!.webhook_secret).toBe(rotated);
    await again.close();
  });

  it('reads legacy plaintext rows, and seals them when they are next written, leaving no plaintext in the file', async () => {
    // Rows as the version before encryption wrote them.
    const legacy = new SqliteDirectory(file, new SecretCipher({ current: newKey(), previous: [] }));
    await legacy.close();
    const db = new Database(file);
    db.prepare('INSERT INTO organizations (id, doc) VALUES (?, ?)').run('o1', JSON.stringify(org('o1')));
    db.prepare('INSERT INTO organizations (id, doc) VALUES (?, ?)').run('o2', JSON.stringify(org('o2', 'whsec_second-legacy-secret')));
    // More organizations on the same page: their cells are freed in place when rewritten.
    const others = Array.from({ length: 12 }, (_, i) => `whsec_legacy-${i}-${randomBytes(8).toString('hex')}`);
    others.forEach((secret, i) =>
      db.prepare('INSERT INTO organizations (id, doc) VALUES (?, ?)').run(`x${i}`, JSON.stringify(org(`x${i}`, secret))),
    );
    db.prepare('INSERT INTO providers (id, organization_id, created_at, doc) VALUES (?, ?, ?, ?)').run(
      'p1',
      'o1',
      now,
      JSON.stringify(provider('p1')),
    );
    db.close();
    expect(contains(fileBytes(file), API_KEY)).toBe(true);

    const k = newKey();
    const directory = new SqliteDirectory(file, new SecretCipher({ current: k, previous: [] }));
    expect((await directory.getOrganization('o1'))!.webhook_secret).toBe(WEBHOOK_SECRET);
    expect((await directory.getProvider('o1', 'p1'))!.api_key).toBe(API_KEY);

    // Any write of the record seals it: an unrelated organization update, a provider PUT.
    await directory.updateOrganization('o1', { review_preparation_quota: 5 });
    for (let i = 0; i < others.length; i++) await directory.updateOrganization(`x${i}`, { name: 'Acme again' });
    await directory.putProvider({ ...(await directory.getProvider('o1', 'p1'))!, name: 'renamed' });
    expect(await directory.reencryptSecrets({ dryRun: true })).toEqual({ organizations: 1, providers: 0 }); // o2 is left
    expect(await directory.reencryptSecrets()).toEqual({ organizations: 1, providers: 0 });
    expect(await directory.reencryptSecrets()).toEqual({ organizations: 0, providers: 0 });
    expect((await directory.getOrganization('o1'))!).toMatchObject({ webhook_secret: WEBHOOK_SECRET, review_preparation_quota: 5 });
    expect((await directory.getOrganization('o2'))!.webhook_secret).toBe('whsec_second-legacy-secret');
    expect((await directory.getProvider('o1', 'p1'))!).toMatchObject({ api_key: API_KEY, name: 'renamed' });
    await directory.close();

    const bytes = fileBytes(file);
    for (const secret of [WEBHOOK_SECRET, 'whsec_second-legacy-secret', API_KEY, ...others]) {
      expect({ secret, inFile: contains(bytes, secret) }).toEqual({ secret, inFile: false });
    }
  });

  it('rotation: SECRETS_KEY_PREVIOUS opens the old secrets, re-encryption moves them to the new key, then the old key can go', async () => {
    const oldKey = newKey();
    const newer = newKey();
    const before = new SqliteDirectory(file, new SecretCipher({ current: oldKey, previous: [] }));
    await before.createOrganization(org('o1'));
    await before.putProvider(provider('p1'));
    await before.close();

    const rotating = new SqliteDirectory(file, new SecretCipher({ current: newer, previous: [oldKey] }));
    expect((await rotating.getProvider('o1', 'p1'))!.api_key).toBe(API_KEY);
    expect(await rotating.reencryptSecrets({ dryRun: true })).toEqual({ organizations: 1, providers: 1 });
    expect(await rotating.reencryptSecrets()).toEqual({ organizations: 1, providers: 1 });
    await rotating.close();

    const after = new SqliteDirectory(file, new SecretCipher({ current: newer, previous: [] }));
    expect((await after.getOrganization('o1'))!.webhook_secret).toBe(WEBHOOK_SECRET);
    expect((await after.getProvider('o1', 'p1'))!.api_key).toBe(API_KEY);
    await after.close();

    // A directory without the key that sealed a secret says which key is missing.
    const lost = new SqliteDirectory(file, new SecretCipher({ current: oldKey, previous: [] }));
    await expect(lost.getProvider('o1', 'p1')).rejects.toThrow(`encrypted with key ${newer.id}`);
    await expect(lost.reencryptSecrets()).rejects.toThrow(`encrypted with key ${newer.id}`);
    await lost.close();
  });
});
