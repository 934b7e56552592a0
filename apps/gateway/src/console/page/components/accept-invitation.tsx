import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, refusalText } from '../api';
import { formatDate, t } from '../i18n';
import { adopt, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { errorProps, FieldError } from './field-error';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

/** The answers that say the link itself is spent: not valid (404), used or withdrawn (409), expired (410). */
const DEAD_LINK = new Set([404, 409, 410]);

interface Preview {
  email: string;
  role: string;
  organization_name: string;
  expires_at: string;
  /** The address is already a member: the link sets a new password (no name asked). */
  password_reset: boolean;
}

/**
 * An invitation link: who is invited where, then a name and a password, and the person is signed in. `signedInAs`: who
 * this browser is signed in as, if anyone.
 */
export function AcceptInvitation({
  id,
  signature,
  onSignedIn,
  signedInAs,
}: {
  id: string;
  signature: string;
  onSignedIn: (s: SessionView) => void;
  signedInAs?: SessionView['member'] | null;
}) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const problemRef = useRef<HTMLDivElement>(null);
  // A spent link takes the form's place: the keyboard goes to why, not to the page's top (the form it was in is gone).
  useEffect(() => {
    if (problem) problemRef.current?.focus();
  }, [problem]);
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const form = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(form, fields);
  const query = `?signature=${encodeURIComponent(signature)}`;
  useEffect(() => {
    api<{ data: Preview }>('GET', `/invitations/${id}${query}`)
      .then((r) => setPreview(r.data))
      .catch((err: ApiFailure) => setProblem(err.message));
  }, [id, signature]);

  const send = useAction(async (form: FormData) => {
    // A new attempt: what the last one was told (a failed network, a refusal) goes, whatever this one is told.
    clearStatus();
    if (form.get('password') !== form.get('password_again')) {
      setFields({ password_again: [t('invite.mismatch')] });
      return;
    }
    setFields({});
    try {
      const { data } = await api<{ data: SessionView }>('POST', `/invitations/${id}/accept${query}`, {
        display_name: form.get('display_name'),
        password: form.get('password'),
      });
      announce(t('invite.done', { organization: data.organization.name }));
      onSignedIn(adopt(data));
    } catch (err) {
      const failure = err as ApiFailure;
      setFields(failure.fields ?? {});
      // Only a link that is spent (used, withdrawn, expired, not valid) ends the form. Anything else (the network, a
      // busy service, a field) leaves it, and what was typed, to send again.
      const beside = Object.keys(failure.fields ?? {}).length > 0;
      if (DEAD_LINK.has(failure.status) && !beside) setProblem(failure.message);
      else announce(refusalText(failure, ['display_name', 'password', 'password_again']), 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(new FormData(event.target as HTMLFormElement));
  };
  const otherMember =
    signedInAs && preview && signedInAs.email.toLocaleLowerCase() !== preview.email.toLocaleLowerCase() ? signedInAs : null;

  return (
    <main id="main" class="narrow" tabIndex={-1}>
      <p class="brand">{t('app.name')}</p>
      <PageTitle text={preview?.password_reset ? t('invite.reset_title') : t('invite.title')} />
      {problem && (
        <div class="notice error" role="alert" tabIndex={-1} ref={problemRef}>
          <p>{problem}</p>
          <p>
            <a href="/console">{t('invite.to_signin')}</a>
          </p>
        </div>
      )}
      {!problem && !preview && <p class="muted">{t('app.loading')}</p>}
      {!problem && preview && (
        <>
          <p>
            {preview.password_reset
              ? t('invite.reset_intro', { organization: preview.organization_name })
              : t('invite.intro', { organization: preview.organization_name, role: t(`role.${preview.role}`) })}
          </p>
          <p class="muted">
            {t(preview.password_reset ? 'invite.reset_expires' : 'invite.expires', { date: formatDate(preview.expires_at) })}
          </p>
          {/* An owner who opens the link they made (to try it before sending it) is told whose it is: the form looked
              like their own to fill in, and joining would use it up and sign them out of their own account here. */}
          {otherMember && (
            <p class="notice" id="invite-someone-else">
              {t('invite.signed_in_other', { name: otherMember.display_name, email: otherMember.email, invited: preview.email })}
            </p>
          )}
          <form ref={form} onSubmit={submit} noValidate>
            <label for="invite-email">{t('signin.email')}</label>
            <input id="invite-email" type="email" value={preview.email} readOnly autoComplete="username" />
            {!preview.password_reset && (
              <>
                <label for="display_name">{t('invite.name')}</label>
                <input
                  id="display_name"
                  name="display_name"
                  autoComplete="name"
                  required
                  {...errorProps('display_name-error', fields.display_name)}
                />
                <FieldError id="display_name-error" messages={fields.display_name} />
              </>
            )}
            <label for="new-password">{t('invite.password')}</label>
            <input
              id="new-password"
              name="password"
              type="password"
              autoComplete="new-password"
              required
              minLength={12}
              aria-describedby={fields.password ? 'password-error' : 'password-hint'}
              aria-invalid={fields.password ? true : undefined}
            />
            <p id="password-hint" class="hint">
              {t('invite.password_hint')}
            </p>
            <FieldError id="password-error" messages={fields.password} />
            <label for="password-again">{t('invite.password_again')}</label>
            <input
              id="password-again"
              name="password_again"
              type="password"
              autoComplete="new-password"
              required
              {...errorProps('password_again-error', fields.password_again)}
            />
            <FieldError id="password_again-error" messages={fields.password_again} />
            <button type="submit" aria-disabled={send.busy || undefined} aria-describedby={otherMember ? 'invite-someone-else' : undefined}>
              {preview.password_reset ? t('invite.reset_submit') : t('invite.submit')}
            </button>
          </form>
        </>
      )}
    </main>
  );
}
