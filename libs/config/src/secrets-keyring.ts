import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Owner-only modes of everything the service creates in DATA_DIR (docs/security.md). */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates a directory (and missing parents) readable by the service's user only. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * The content of a small key file, created once with mode 0600 when it is missing. Safe
 * when several processes sharing DATA_DIR start at once: the content is written to a
 * private temporary file first and hard-linked into place, so a reader never sees a
 * partial file, and the process that loses the race reads the winner's key.
 */
export function readOrCreateKeyFile(file: string, make: () => string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  ensurePrivateDir(dirname(file));
  const tmp = join(dirname(file), `.${randomUUID()}.tmp`);
  writeFileSync(tmp, make(), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(file, 'utf8').trim();
}

/** One key-encryption key: 32 bytes, and an id derived from it (stored beside each secret it seals). */
export interface SecretsKey {
  id: string;
  key: Buffer;
}

/**
 * The keys that protect secrets at rest (provider API keys, webhook secrets): the current
 * one seals every secret written; the previous ones only open secrets sealed before a rotation.
 */
export interface SecretsKeyring {
  current: SecretsKey;
  previous: SecretsKey[];
  /** Where the current key came from: SECRETS_KEY, or the file generated in DATA_DIR. */
  source: 'SECRETS_KEY' | 'DATA_DIR/secrets.key';
}

/** A key's id: not secret, and does not reveal the key (an HMAC under the key itself). */
export const secretsKeyId = (key: Buffer): string =>
  createHmac('sha256', key).update('transformation-service/secrets-key-id').digest('hex').slice(0, 16);

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Parses base64 (standard or URL-safe) of exactly 32 bytes; the message never repeats the value. */
export function parseSecretsKey(raw: string, name: string): SecretsKey {
  const text = raw.trim();
  const key = BASE64.test(text) ? Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(`${name} must be base64 of exactly 32 random bytes (e.g. \`openssl rand -base64 32\`).`);
  return { id: secretsKeyId(key), key };
}

/**
 * SECRETS_KEY (base64, 32 bytes) seals secrets; SECRETS_KEY_PREVIOUS (comma-separated) opens
 * those sealed with older keys. Without SECRETS_KEY: required in production; otherwise a key
 * is generated once into DATA_DIR/secrets.key (0600), as signing.key is. When SECRETS_KEY is
 * set and that file exists, the file's key is kept as a previous key, so moving from the
 * generated key to a configured one needs no other step.
 */
export function loadSecretsKeyring(env: NodeJS.ProcessEnv, dataDir: string, production: boolean): SecretsKeyring {
  const file = join(dataDir, 'secrets.key');
  const previous = (env.SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k, i) => parseSecretsKey(k, `SECRETS_KEY_PREVIOUS (key ${i + 1})`));
  let current: SecretsKey;
  let source: SecretsKeyring['source'];
  if (env.SECRETS_KEY) {
    current = parseSecretsKey(env.SECRETS_KEY, 'SECRETS_KEY');
    source = 'SECRETS_KEY';
    let generated: string | null = null;
    try {
      generated = readFileSync(file, 'utf8').trim();
    } catch {
      /* no generated key: nothing to keep */
    }
    if (generated) previous.push(parseSecretsKey(generated, file));
  } else if (production) {
    throw new Error(
      'NODE_ENV=production needs SECRETS_KEY (base64 of 32 random bytes, e.g. `openssl rand -base64 32`): it encrypts provider API keys and webhook secrets at rest.',
    );
  } else {
    current = parseSecretsKey(
      readOrCreateKeyFile(file, () => randomBytes(32).toString('base64')),
      file,
    );
    source = 'DATA_DIR/secrets.key';
  }
  const seen = new Set([current.id]);
  return { current, previous: previous.filter((k) => !seen.has(k.id) && seen.add(k.id)), source };
}
