import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, whenForbidden, whenSignedOut } from '../api';
import { t } from '../i18n';
import { navigate, useLocation } from '../router';
import { loadSession, refreshSession, whenSessionRefreshed, type SessionView } from '../session';
import { AcceptInvitation } from './accept-invitation';
import { LoadState } from './load-state';
import { Shell } from './shell';
import { SignIn, SignInAgain } from './sign-in';
import { StatusRegion } from './status';

/** The console: an invitation link, the sign-in form, or the signed-in console. */
export function App() {
  const loc = useLocation();
  const [session, setSession] = useState<SessionView | null | undefined>(undefined);
  // The session that ended by itself (a call answered 401) while the console was open: its pages stay mounted but
  // hidden (nothing of them is shown to whoever comes to the screen), under a sign-in dialog, so that what was typed
  // is not lost. Signing out on purpose leaves nothing behind.
  const [ended, setEnded] = useState<SessionView | null>(null);
  const current = useRef(session);
  current.current = session;
  // Where the focus was when the session ended: it goes back there once the same member is signed in again.
  const focusBefore = useRef<HTMLElement | null>(null);
  // The session could not be read at all (not reached, a server error): said, with "Try again", not the sign-in form.
  const [bootFailure, setBootFailure] = useState<ApiFailure | null>(null);
  const boot = () =>
    void loadSession().then((read) => {
      if (read instanceof ApiFailure) return setBootFailure(read);
      setBootFailure(null);
      setSession(read);
    });
  useEffect(() => {
    boot();
    whenSignedOut(() => {
      if (current.current) {
        focusBefore.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        setEnded(current.current);
      }
      setSession(null);
    });
    whenSessionRefreshed(setSession);
    // Refused for the role: it changed since the page was drawn (another owner demoted this member). Read again, the
    // controls follow it; the one that was used may be gone with them, hidden or disabled (a viewer's schema form), and
    // then the page's heading takes the keyboard. Looked at in a later task, once the pages are drawn again.
    whenForbidden(() => {
      const used = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      void refreshSession().then(() =>
        setTimeout(() => {
          const focused = document.activeElement;
          const lost = !focused || focused === document.body || (used !== null && focused === used && !usable(used));
          if (lost) document.querySelector<HTMLElement>('#main h1')?.focus();
        }),
      );
    });
  }, []);
  useLayoutEffect(() => {
    if (!session || !focusBefore.current) return;
    if (focusBefore.current.isConnected) focusBefore.current.focus();
    focusBefore.current = null;
  }, [session]);
  const signedOut = () => {
    // At once, not at the next render: a call refused meanwhile must not open the dialog over a sign-out.
    current.current = null;
    focusBefore.current = null;
    setEnded(null);
    setSession(null);
  };

  // Any id: one cut short in a pasted link is told "not valid" by the invitation's page, not shown the sign-in form.
  const invitation = /^\/console\/invitations\/([^/]+)$/.exec(loc.path);
  let content;
  if (invitation) {
    content = (
      <AcceptInvitation
        id={invitation[1]}
        signature={loc.query.get('signature') ?? ''}
        signedInAs={session?.member ?? null}
        onSignedIn={(s) => {
          setSession(s);
          navigate('/console/runs', true);
        }}
      />
    );
  } else if (session === undefined) {
    content = (
      <main id="main" class="narrow" tabIndex={-1} aria-busy={bootFailure ? undefined : 'true'}>
        <LoadState
          loading={true}
          error={bootFailure}
          onRetry={() => {
            setBootFailure(null);
            boot();
          }}
        />
      </main>
    );
  } else if (session === null && !ended) {
    content = <SignIn onSignedIn={setSession} />;
  } else {
    // The signed-in console, or the same member's pages kept under the sign-in dialog: one tree in one place either
    // way, so the pages keep their state (keyed by member: someone else signing in gets pages of their own).
    const shown = (session ?? ended)!;
    content = (
      <>
        <div hidden={!session || undefined}>
          <Shell key={shown.member.id} session={shown} path={loc.path} query={loc.query} onSignedOut={signedOut} />
        </div>
        {!session && (
          <SignInAgain
            email={shown.member.email}
            onSignedIn={(s) => {
              setEnded(null);
              setSession(s);
            }}
            onSomeoneElse={signedOut}
          />
        )}
      </>
    );
  }
  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      {content}
      <StatusRegion />
    </>
  );
}

/** Whether a control can still be used: on the page, shown, not disabled. */
const usable = (el: HTMLElement): boolean => el.isConnected && !el.matches(':disabled') && !el.closest('[hidden], [inert]');
