import type { MemberRole } from '@app/accounts';
import { urlForRole } from './url-for-role';

/**
 * A webhook attempt as a console member sees it. Its `url` is the run's `notify_url` or the
 * organization's default, as the API caller or an owner wrote it, a password or a token in it
 * included: a viewer sees it with those hidden (url-for-role.ts). Its `response_excerpt` is what
 * the customer's receiver answered, which may echo anything it was sent: the run's review link
 * (a link that acts), the webhook secret (hidden by its shape as the answer arrives, but not once
 * the receiver has changed it: upper-cased, base64, its prefix cut, as a probe showed). No
 * pattern can find every copy, so a viewer, who gets no secret and no link that acts
 * (run-for-role.ts), is not given the answer at all: `response_excerpt` null and
 * `response_excerpt_withheld` true. Owners and admins see it as it came.
 */
export function attemptForRole<A extends { url?: string | null; response_excerpt: string | null }>(
  attempt: A,
  role: MemberRole,
): A & { response_excerpt_withheld?: true } {
  if (role !== 'viewer') return attempt;
  const url = typeof attempt.url === 'string' ? { url: urlForRole(attempt.url, role) } : {};
  const excerpt = attempt.response_excerpt === null ? {} : { response_excerpt: null, response_excerpt_withheld: true as const };
  return { ...attempt, ...url, ...excerpt };
}
