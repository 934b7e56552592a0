import type { MemberRole } from '@app/accounts';

/**
 * A run as a console member sees it. Its signed links that act are not links to read: whoever
 * holds the review link edits the mapping, fixes values and approves or cancels the review, and
 * whoever holds the upload instructions sends the run its file (which starts it and spends the
 * organization's quota). A viewer reads runs and changes nothing, so a viewer's copy of a run has
 * `review_url` null and no `upload`; owners and admins get the run as the public API gives it.
 * (The download link stays: reading the output is reading.)
 */
export function runForRole<R extends { review_url: string | null; upload?: unknown }>(run: R, role: MemberRole): R {
  if (role !== 'viewer') return run;
  const { upload: _withheld, ...rest } = run;
  return { ...rest, review_url: null } as R;
}
