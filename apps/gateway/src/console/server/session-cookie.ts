import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import { createHash, randomBytes } from 'node:crypto';
import type { AppConfig } from '@app/config';

export const SESSION_COOKIE = 'console_session';

/** A new session's cookie value (256 random bits) and CSRF token. Only the token's hash is stored. */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');
export const newCsrfToken = (): string => randomBytes(24).toString('base64url');
export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/**
 * Which password a session stands for: a digest of the member's (salted) password hash, kept with the session. It
 * sits beside that hash in the same store, so a plain digest tells nothing the store does not already hold.
 */
export const passwordFingerprint = (passwordHash: string): string => createHash('sha256').update(passwordHash).digest('base64url');

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Path=/console
 * (never sent to /v1 or /admin/v1), Secure when the service is reached over https. No Max-Age:
 * the server ends an idle session; the browser forgets the cookie when it closes.
 */
export const sessionCookieOptions = (config: AppConfig): CookieSerializeOptions => ({
  httpOnly: true,
  sameSite: 'strict',
  path: '/console',
  secure: config.publicBaseUrl.startsWith('https://'),
});

export const sessionTokenOf = (request: FastifyRequest): string | null => {
  const value = request.cookies?.[SESSION_COOKIE];
  return typeof value === 'string' && value.length > 0 && value.length <= 128 ? value : null;
};

export const setSessionCookie = (reply: FastifyReply, config: AppConfig, token: string): void => {
  void reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(config));
};

export const clearSessionCookie = (reply: FastifyReply, config: AppConfig): void => {
  void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config));
};
