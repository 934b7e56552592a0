import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretsKey, SecretsKeyring } from '@app/config';

/**
 * Envelope encryption of the secrets the directory keeps (provider API keys, webhook
 * secrets) with Node's AES-256-GCM. Each secret gets its own random data key; the data
 * key is wrapped by the key-encryption key (SECRETS_KEY) whose id is stored with it, so a
 * rotated-out key can still open what it sealed (SECRETS_KEY_PREVIOUS) until
 * `secrets:reencrypt` re-seals everything with the current key.
 *
 * Stored form: `enc:v1:<kek id>:<wrapped data key>:<sealed secret>`, both parts base64url of
 * `iv (12) | tag (16) | ciphertext`. The secret's ciphertext is bound to where it belongs
 * (`context`, e.g. `provider/<id>/api_key`) as additional authenticated data: a sealed value
 * copied into another record does not open.
 *
 * A stored value without the prefix is a secret written before encryption existed (legacy
 * plaintext): it is read as it is, and sealed the next time its record is written.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed secret whose key is not configured, or that does not authenticate. */
export class SecretUnreadable extends Error {}

const b64u = (buf: Buffer) => buf.toString('base64url');

function gcmSeal(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]);
}

function gcmOpen(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadable('A stored secret is truncated.');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

export class SecretCipher {
  private readonly keys = new Map<string, SecretsKey>();
  private readonly current: SecretsKey;

  constructor(keyring: Pick<SecretsKeyring, 'current' | 'previous'>) {
    this.current = keyring.current;
    for (const k of [keyring.current, ...keyring.previous]) if (!this.keys.has(k.id)) this.keys.set(k.id, k);
  }

  /** Whether a stored value is sealed (any key), as opposed to legacy plaintext. */
  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  /** The id of the key that sealed a stored value; null for legacy plaintext. */
  static keyIdOf(stored: string): string | null {
    return SecretCipher.isSealed(stored) ? (stored.slice(PREFIX.length).split(':')[0] ?? null) : null;
  }

  /** Whether a stored value should be sealed again: legacy plaintext, or sealed with a key that is not the current one. */
  needsReseal(stored: string): boolean {
    return SecretCipher.keyIdOf(stored) !== this.current.id;
  }

  seal(plaintext: string, context: string): string {
    const dataKey = randomBytes(32);
    try {
      const kid = this.current.id;
      const wrapped = gcmSeal(this.current.key, dataKey, `${PREFIX}${kid}`);
      const sealed = gcmSeal(dataKey, Buffer.from(plaintext, 'utf8'), `${PREFIX}${kid}:${context}`);
      return `${PREFIX}${kid}:${b64u(wrapped)}:${b64u(sealed)}`;
    } finally {
      dataKey.fill(0);
    }
  }

  open(stored: string, context: string): string {
    if (!SecretCipher.isSealed(stored)) return stored; // legacy plaintext
    const [kid, wrapped, sealed, ...rest] = stored.slice(PREFIX.length).split(':');
    if (!kid || !wrapped || !sealed || rest.length > 0) throw new SecretUnreadable(`A stored secret (${context}) is malformed.`);
    const kek = this.keys.get(kid);
    if (!kek) {
      throw new SecretUnreadable(
        `A stored secret (${context}) was encrypted with key ${kid}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS.`,
      );
    }
    let dataKey: Buffer | null = null;
    try {
      dataKey = gcmOpen(kek.key, Buffer.from(wrapped, 'base64url'), `${PREFIX}${kid}`);
      return gcmOpen(dataKey, Buffer.from(sealed, 'base64url'), `${PREFIX}${kid}:${context}`).toString('utf8');
    } catch (err) {
      if (err instanceof SecretUnreadable) throw err;
      throw new SecretUnreadable(
        `A stored secret (${context}) does not decrypt with key ${kid}: it was altered or belongs to another record.`,
      );
    } finally {
      dataKey?.fill(0);
    }
  }

  /** Seals a nullable secret (null stays null). */
  sealNullable(plaintext: string | null, context: string): string | null {
    return plaintext === null ? null : this.seal(plaintext, context);
  }

  openNullable(stored: string | null | undefined, context: string): string | null {
    return stored === null || stored === undefined ? null : this.open(stored, context);
  }
}

/** Where each directory secret belongs: the additional authenticated data of its ciphertext. */
export const SECRET_CONTEXT = {
  webhookSecret: (organizationId: string) => `organization/${organizationId}/webhook_secret`,
  providerApiKey: (providerId: string) => `provider/${providerId}/api_key`,
};

/** What `secrets:reencrypt` did (or, in a dry run, would do). */
export interface ReencryptReport {
  organizations: number;
  providers: number;
}
