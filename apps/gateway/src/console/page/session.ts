import { ApiFailure, api, failureText, setCsrfToken } from './api';
import { t } from './i18n';
import { navigate } from './router';

/** Who is signed in, as GET /console/api/session says. */
export interface SessionView {
  member: { id: string; email: string; display_name: string; role: 'owner' | 'admin' | 'viewer' };
  organization: { id: string; name: string };
  csrf_token: string;
}

/** Owners and admins change things; viewers only look. */
export const canChange = (s: SessionView): boolean => s.member.role !== 'viewer';
export const isOwner = (s: SessionView): boolean => s.member.role === 'owner';

/**
 * The session, if there is one (its CSRF token is kept for the calls that change things); null when there is none
 * (401). When it could not be read (the service not reached, a server error), the failure: that is no sign-out, and
 * the sign-in form would say the wrong thing.
 */
export async function loadSession(): Promise<SessionView | null | ApiFailure> {
  try {
    const { data } = await api<{ data: SessionView }>('GET', '/session');
    setCsrfToken(data.csrf_token);
    return data;
  } catch (err) {
    setCsrfToken(null);
    if (err instanceof ApiFailure && err.status !== 401) return err;
    return null;
  }
}

let onRefreshed: (session: SessionView | null) => void = () => undefined;
/** Called with the session read again by `refreshSession` (the app shows what the member may now do). */
export const whenSessionRefreshed = (handler: (session: SessionView | null) => void): void => {
  onRefreshed = handler;
};
/**
 * Reads the session again: after a change to the signed-in member's own role, every page's
 * controls follow it. A read that fails keeps the session as it is (a dropped connection is no
 * sign-out; a 401 signs out through `whenSignedOut`).
 */
export async function refreshSession(): Promise<void> {
  try {
    const { data } = await api<{ data: SessionView }>('GET', '/session');
    setCsrfToken(data.csrf_token);
    onRefreshed(data);
  } catch {
    // kept as it is
  }
}

export function adopt(session: SessionView): SessionView {
  setCsrfToken(session.csrf_token);
  return session;
}

/**
 * Ends the session and shows the sign-in form. A sign-out that did not go through (the service not reached, a server
 * error) leaves the page as it was and says so (`announceFailed`): the session's cookie, which the page cannot clear, still
 * signs in, so "You are signed out" on the sign-in form told whoever then left a shared computer that it was safe to.
 * The service ends an ended session's sign-out with 204 too: any failure is a session still standing.
 */
export async function endSession(onSignedOut: () => void, announceDone: () => void, announceFailed: (text: string) => void): Promise<void> {
  try {
    await api('DELETE', '/session');
  } catch (err) {
    announceFailed(t('signout.failed', { reason: err instanceof ApiFailure ? failureText(err) : t('api.network') }));
    return;
  }
  setCsrfToken(null);
  announceDone();
  onSignedOut();
  navigate('/console', true);
}
