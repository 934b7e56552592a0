import { randomBytes } from 'node:crypto';
import { parseSecretsKey } from '@app/config';
import { SECRET_CONTEXT, SecretCipher, SecretUnreadable } from './secret-cipher';

const newKey = () => parseSecretsKey(randomBytes(32).toString('base64'), 'k');
const ctx = SECRET_CONTEXT.providerApiKey('p1');

describe('secret cipher (envelope encryption, AES-256-GCM)', () => {
  const k1 = newKey();
  const k2 = newKey();
  const cipher = new SecretCipher({ current: k1, previous: [] });

  it('round-trips, with a fresh data key and IV per secret, and never holds the plaintext', () => {
    const secret = 'sk-live-0123456789abcdef';
    const a = cipher.seal(secret, ctx);
    const b = cipher.seal(secret, ctx);
    expect(a).not.toBe(b);
    for (const sealed of [a, b]) {
      expect(sealed).toMatch(new RegExp(`^enc:v1:${k1.id}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$`));
      expect(sealed).not.toContain(secret);
      expect(sealed).not.toContain(Buffer.from(secret).toString('base64'));
      expect(cipher.open(sealed, ctx)).toBe(secret);
    }
    expect(a.split(':')[3]).not.toBe(b.split(':')[3]); // each secret has its own wrapped data key
    expect(cipher.open(cipher.seal('', ctx), ctx)).toBe('');
    expect(cipher.open(cipher.seal('ünïcødé ✓', ctx), ctx)).toBe('ünïcødé ✓');
  });

  it('reads legacy plaintext as it is, and marks it for sealing', () => {
    expect(cipher.open('whsec_legacyplaintext', ctx)).toBe('whsec_legacyplaintext');
    expect(cipher.needsReseal('whsec_legacyplaintext')).toBe(true);
    expect(cipher.needsReseal(cipher.seal('x', ctx))).toBe(false);
    expect(cipher.openNullable(null, ctx)).toBeNull();
    expect(cipher.sealNullable(null, ctx)).toBeNull();
  });

  it('a value sealed for one record does not open as another (context bound), nor after tampering', () => {
    const sealed = cipher.seal('secret', ctx);
    expect(() => cipher.open(sealed, SECRET_CONTEXT.providerApiKey('p2'))).toThrow(SecretUnreadable);
    expect(() => cipher.open(sealed, SECRET_CONTEXT.webhookSecret('p1'))).toThrow(/altered or belongs to another record/);
    const parts = sealed.split(':');
    const body = Buffer.from(parts[4], 'base64url');
    body[body.length - 1] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => cipher.open(parts.join(':'), ctx)).toThrow(SecretUnreadable);
    expect(() => cipher.open('enc:v1:abc', ctx)).toThrow(/malformed/);
  });

  it('rotation: the previous key still opens what it sealed; new seals use the current key', () => {
    const old = cipher.seal('rotated secret', ctx);
    const rotated = new SecretCipher({ current: k2, previous: [k1] });
    expect(rotated.open(old, ctx)).toBe('rotated secret');
    expect(rotated.needsReseal(old)).toBe(true);
    const resealed = rotated.seal(rotated.open(old, ctx), ctx);
    expect(SecretCipher.keyIdOf(resealed)).toBe(k2.id);
    expect(rotated.needsReseal(resealed)).toBe(false);
    // Without the previous key, the error names the key and the variables, never the value.
    const withoutOld = new SecretCipher({ current: k2, previous: [] });
    expect(() => withoutOld.open(old, ctx)).toThrow(
      `encrypted with key ${k1.id}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
    );
    // A wrong key with a forged id does not open either.
    const forged = new SecretCipher({ current: { id: k1.id, key: k2.key }, previous: [] });
    expect(() => forged.open(old, ctx)).toThrow(SecretUnreadable);
  });
});
