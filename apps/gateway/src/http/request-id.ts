import type { IncomingHttpHeaders } from 'node:http';

const SAFE_CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The caller's own X-Request-Id, when it is safe to echo and log (1 to 100 characters of
 * `A-Z a-z 0-9 . _ -`); null otherwise. It is never our request id: that one is always
 * generated, so a caller cannot choose the correlation id of the events it causes.
 */
export function clientRequestId(headers: IncomingHttpHeaders): string | null {
  const given = headers['x-request-id'];
  return typeof given === 'string' && SAFE_CLIENT_ID.test(given) ? given : null;
}
