import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { loadSecretsKeyring, parseSecretsKey, readOrCreateKeyFile, secretsKeyId } from './secrets-keyring';

const dir = () => mkdtempSync(join(tmpdir(), 'keyring-'));
const key = () => randomBytes(32).toString('base64');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('secrets keyring (SECRETS_KEY, SECRETS_KEY_PREVIOUS, DATA_DIR/secrets.key)', () => {
  it('takes SECRETS_KEY (standard or URL-safe base64 of 32 bytes) and creates no file', () => {
    const d = dir();
    const raw = randomBytes(32);
    for (const spelled of [raw.toString('base64'), raw.toString('base64url')]) {
      const ring = loadSecretsKeyring({ SECRETS_KEY: spelled }, d, true);
      expect(ring.current.key.equals(raw)).toBe(true);
      expect(ring.current.id).toBe(secretsKeyId(raw));
      expect(ring.source).toBe('SECRETS_KEY');
    }
    expect(() => statSync(join(d, 'secrets.key'))).toThrow();
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['too long', randomBytes(48).toString('base64')],
    ['not base64', 'this is not a key!'],
  ])('refuses a SECRETS_KEY that is %s, without repeating it', (_what, value) => {
    expect(() => loadSecretsKeyring({ SECRETS_KEY: value }, dir(), false)).toThrow(/SECRETS_KEY must be base64 of exactly 32 random bytes/);
    try {
      loadSecretsKeyring({ SECRETS_KEY: value }, dir(), false);
    } catch (err) {
      expect((err as Error).message).not.toContain(value);
    }
  });

  it('is required in production', () => {
    expect(() => loadSecretsKeyring({}, dir(), true)).toThrow('NODE_ENV=production needs SECRETS_KEY');
    expect(() => loadConfig({ DATA_DIR: dir(), NODE_ENV: 'production' })).toThrow('NODE_ENV=production needs SECRETS_KEY');
  });

  it('is generated once into DATA_DIR/secrets.key (0600, directory 0700) outside production, and kept', () => {
    const d = join(dir(), 'nested', 'data');
    const first = loadSecretsKeyring({}, d, false);
    expect(first.source).toBe('DATA_DIR/secrets.key');
    expect(mode(join(d, 'secrets.key'))).toBe(0o600);
    expect(mode(d)).toBe(0o700);
    expect(loadSecretsKeyring({}, d, false).current.id).toBe(first.current.id);
    expect(readFileSync(join(d, 'secrets.key'), 'utf8').trim()).toBe(first.current.key.toString('base64'));
  });

  it('keeps the previous keys, and the generated file key once SECRETS_KEY is set', () => {
    const d = dir();
    const generated = loadSecretsKeyring({}, d, false).current;
    const [a, b, c] = [key(), key(), key()];
    const ring = loadSecretsKeyring({ SECRETS_KEY: a, SECRETS_KEY_PREVIOUS: ` ${b}, ${c} ,${a}` }, d, false);
    expect(ring.current.id).toBe(parseSecretsKey(a, 'x').id);
    expect(ring.previous.map((k) => k.id)).toEqual([parseSecretsKey(b, 'x').id, parseSecretsKey(c, 'x').id, generated.id]);
    expect(() => loadSecretsKeyring({ SECRETS_KEY: a, SECRETS_KEY_PREVIOUS: 'nope' }, d, false)).toThrow(
      'SECRETS_KEY_PREVIOUS (key 1) must be base64',
    );
  });

  it('a key file created by another process first is read, not replaced', () => {
    const d = dir();
    writeFileSync(join(d, 'signing.key'), 'theirs\n', { mode: 0o600 });
    expect(readOrCreateKeyFile(join(d, 'signing.key'), () => 'mine')).toBe('theirs');
    expect(readOrCreateKeyFile(join(d, 'other.key'), () => 'mine')).toBe('mine');
    expect(mode(join(d, 'other.key'))).toBe(0o600);
  });

  it('signing.key is created 0600 too', () => {
    const d = dir();
    loadConfig({ DATA_DIR: d });
    expect(mode(join(d, 'signing.key'))).toBe(0o600);
    expect(mode(join(d, 'secrets.key'))).toBe(0o600);
  });
});

describe('AI_ALLOWED_ADDRESSES', () => {
  it('is empty unless set, and a trimmed list', () => {
    expect(loadConfig({ DATA_DIR: dir() }).ai.allowedAddresses).toEqual([]);
    expect(loadConfig({ DATA_DIR: dir(), AI_ALLOWED_ADDRESSES: ' 127.0.0.1, ::1 ,' }).ai.allowedAddresses).toEqual(['127.0.0.1', '::1']);
  });
});
