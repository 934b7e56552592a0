import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * HMAC-SHA256 signatures for URLs the service hands out. The signed text binds the
 * purpose (e.g. the HTTP method), the resource and the expiry, so a URL cannot be
 * reused for another method, another resource or past its deadline.
 */
export class UrlSigner {
  constructor(private readonly secret: Buffer) {}

  sign(purpose: string, resource: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${resource}\n${expiresAtSeconds}`).digest('base64url');
  }

  check(purpose: string, resource: string, expiresAtSeconds: number, signature: string, now = new Date()): SignatureCheck {
    if (!Number.isSafeInteger(expiresAtSeconds) || typeof signature !== 'string') return 'invalid';
    const expected = Buffer.from(this.sign(purpose, resource, expiresAtSeconds));
    const given = Buffer.from(signature);
    // Constant-time comparison: the signature must not leak through timing.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expiresAtSeconds * 1000 <= now.getTime() ? 'expired' : 'valid';
  }
}

/** The process's URL signer (signs review links, local upload/download URLs). */
export const URL_SIGNER = Symbol('URL_SIGNER');
