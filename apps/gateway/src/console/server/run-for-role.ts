import type { MemberRole } from '@app/accounts';

/**
 * A run as a console member sees it. The signed review link is not a link to read: whoever holds
 * it edits the mapping, fixes values and approves or cancels the review. A viewer reads runs and
 * changes nothing, so a viewer's copy of a run has no `review_url` (null, as for a run with no
 * review); owners and admins get the link as the public API gives it.
 */
export function runForRole<R extends { review_url: string | null }>(run: R, role: MemberRole): R {
  return role === 'viewer' && run.review_url !== null ? { ...run, review_url: null } : run;
}
