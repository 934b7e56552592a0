import type { MemberRole } from '@app/accounts';
import { SECRET_QUERY_PARAMS } from '@app/logging';
import { urlForRole } from './url-for-role';

/** A parameter's name with any of its characters percent-encoded (`sig%6eature` is `signature` to the server that reads it). */
const anyEncoding = (name: string): string =>
  [...name]
    .map((c) => {
      const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
      return `(?:${c.replace(/[-]/g, '\\-')}|%${hex})`;
    })
    .join('');

/**
 * A credential in a URL's query (the parameters the logs redact too: ours `signature`, S3's
 * `X-Amz-Signature`...), as written or percent-encoded, its name too (a receiver that echoes a
 * form-encoded copy).
 */
const SIGNATURE_IN_QUERY = new RegExp(
  // The value runs to the next `&`, written or encoded (%26): an encoded `+`, `/` or `=` (%2B, %2F, %3D) is part of it.
  `((?:[?&]|%3F|%26)(?:${SECRET_QUERY_PARAMS.map(anyEncoding).join('|')})(?:=|%3D))(?:[^&\\s"'<>\\\\%]|%(?!26)[0-9A-Fa-f]{2})+`,
  'gi',
);

/**
 * A webhook attempt as a console member sees it. Its `url` is the run's `notify_url` or the
 * organization's default, as the API caller or an owner wrote it, a password or a token in it
 * included. Its `response_excerpt` is what the customer's receiver answered, and a receiver that
 * echoes the request it was sent echoes the run's review link with it. A viewer, who gets no
 * secret and no link that acts (run-for-role.ts), sees both with their credentials hidden.
 */
export function attemptForRole<A extends { url?: string | null; response_excerpt: string | null }>(attempt: A, role: MemberRole): A {
  if (role !== 'viewer') return attempt;
  const url = typeof attempt.url === 'string' ? { url: urlForRole(attempt.url, role) } : {};
  const excerpt =
    attempt.response_excerpt === null ? {} : { response_excerpt: attempt.response_excerpt.replace(SIGNATURE_IN_QUERY, '$1[hidden]') };
  return { ...attempt, ...url, ...excerpt };
}
