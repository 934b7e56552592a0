import type { MemberRole } from '@app/accounts';
import { SECRET_QUERY_PARAMS } from '@app/logging';

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
  `((?:[?&]|%3F|%26)(?:${SECRET_QUERY_PARAMS.map(anyEncoding).join('|')})(?:=|%3D))[^&\\s"'<>\\\\%]+`,
  'gi',
);

/**
 * A webhook attempt as a console member sees it. Its `response_excerpt` is what the customer's
 * receiver answered, and a receiver that echoes the request it was sent echoes the run's review
 * link with it: a viewer, who gets no link that acts (run-for-role.ts), sees its signature hidden.
 */
export function attemptForRole<A extends { response_excerpt: string | null }>(attempt: A, role: MemberRole): A {
  if (role !== 'viewer' || attempt.response_excerpt === null) return attempt;
  return { ...attempt, response_excerpt: attempt.response_excerpt.replace(SIGNATURE_IN_QUERY, '$1[hidden]') };
}
