import { t } from '../i18n';
import { mayLeave } from '../router';
import { endSession, type SessionView } from '../session';
import { AccountPage } from './account-page';
import { ApiKeysPage } from './api-keys-page';
import { AuditPage } from './audit-page';
import { MembersPage } from './members-page';
import { ProvidersPage } from './providers-page';
import { RunPage } from './run-page';
import { RunsPage } from './runs-page';
import { SchemaEditor } from './schema-editor';
import { PageTitle } from './page-title';
import { SchemasPage } from './schemas-page';
import { announce } from './status';
import { UsagePage } from './usage-page';
import { WebhookPage } from './webhook-page';

const SECTIONS = ['runs', 'schemas', 'providers', 'webhook', 'api-keys', 'usage', 'members', 'audit', 'account'] as const;

/** The signed-in console: who and where, the sections, and the page the path names. */
export function Shell({
  session,
  path,
  query,
  onSignedOut,
}: {
  session: SessionView;
  path: string;
  query: URLSearchParams;
  onSignedOut: () => void;
}) {
  const parts = path
    .replace(/^\/console\/?/, '')
    .split('/')
    .filter(Boolean);
  const section = (parts[0] ?? 'runs') as (typeof SECTIONS)[number];
  // Signing out leaves the page too: a form not saved or a key not copied asks first.
  const signOut = () => {
    if (mayLeave())
      void endSession(
        onSignedOut,
        () => announce(t('signout.done')),
        (text) => announce(text, 'error'),
      );
  };
  return (
    <div class="shell">
      <header class="topbar">
        <p class="brand">
          {t('app.name')} <span class="org">{session.organization.name}</span>
        </p>
        <div class="who">
          <span>{t('app.signed_in_as', { name: session.member.display_name, role: t(`role.${session.member.role}`) })}</span>
          <button type="button" class="secondary" onClick={signOut}>
            {t('signout.button')}
          </button>
        </div>
      </header>
      <nav class="site-nav" aria-label={t('nav.label')}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s}>
              <a href={`/console/${s}`} aria-current={s === section ? 'page' : undefined}>
                {t(`nav.${s}`)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* Focusable by script (tabIndex -1): the skip link's #main takes the focus to it, not to the page's body. */}
      <main id="main" tabIndex={-1}>
        {page(section, parts, query, session, onSignedOut)}
      </main>
    </div>
  );
}

function page(section: string, parts: string[], query: URLSearchParams, session: SessionView, onSignedOut: () => void) {
  switch (section) {
    case 'runs':
      return parts[1] ? <RunPage id={parts[1]} session={session} /> : <RunsPage query={query} />;
    case 'schemas':
      return parts[1] ? <SchemaEditor id={parts[1] === 'new' ? null : parts[1]} session={session} /> : <SchemasPage session={session} />;
    case 'providers':
      return <ProvidersPage session={session} />;
    case 'webhook':
      return <WebhookPage session={session} />;
    case 'api-keys':
      return <ApiKeysPage session={session} />;
    case 'usage':
      return <UsagePage />;
    case 'members':
      return <MembersPage session={session} onSignedOut={onSignedOut} />;
    case 'audit':
      return <AuditPage />;
    case 'account':
      return <AccountPage session={session} onSignedOut={onSignedOut} />;
    default:
      return (
        <section>
          <PageTitle text={t('notfound.title')} />
          <p>
            <a href="/console/runs">{t('notfound.back')}</a>
          </p>
        </section>
      );
  }
}
