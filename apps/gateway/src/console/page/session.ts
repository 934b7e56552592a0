import { ApiFailure, api, setCsrfToken } from './api';
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

/** Ends the session (even if the call fails, the page forgets it) and shows the sign-in form. */
export async function endSession(onSignedOut: () => void, announceDone: () => void): Promise<void> {
  try {
    await api('DELETE', '/session');
  } finally {
    setCsrfToken(null);
    announceDone();
    onSignedOut();
    navigate('/console', true);
  }
}
