import { useEffect, useState } from 'preact/hooks';
import { whenSignedOut } from '../api';
import { t } from '../i18n';
import { navigate, useLocation } from '../router';
import { loadSession, whenSessionRefreshed, type SessionView } from '../session';
import { AcceptInvitation } from './accept-invitation';
import { Shell } from './shell';
import { SignIn } from './sign-in';
import { StatusRegion } from './status';

/** The console: an invitation link, the sign-in form, or the signed-in console. */
export function App() {
  const loc = useLocation();
  const [session, setSession] = useState<SessionView | null | undefined>(undefined);
  useEffect(() => {
    void loadSession().then(setSession);
    whenSignedOut(() => setSession(null));
    whenSessionRefreshed(setSession);
  }, []);

  const invitation = /^\/console\/invitations\/([0-9a-f-]{36})$/i.exec(loc.path);
  let content;
  if (invitation) {
    content = (
      <AcceptInvitation
        id={invitation[1]}
        signature={loc.query.get('signature') ?? ''}
        onSignedIn={(s) => {
          setSession(s);
          navigate('/console/runs', true);
        }}
      />
    );
  } else if (session === undefined) {
    content = (
      <main id="main" class="narrow" aria-busy="true">
        <p class="muted">{t('app.loading')}</p>
      </main>
    );
  } else if (session === null) {
    content = <SignIn onSignedIn={setSession} />;
  } else {
    content = <Shell session={session} path={loc.path} query={loc.query} onSignedOut={() => setSession(null)} />;
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
