import { useRef, useState } from 'preact/hooks';
import { api, failureText, refusalText, type ApiFailure } from '../api';
import { t } from '../i18n';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { endSession, type SessionView } from '../session';
import { errorProps, FieldError } from './field-error';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

/** The member's own account: the password, other sessions, signing out. */
export function AccountPage({ session, onSignedOut }: { session: SessionView; onSignedOut: () => void }) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, errors);
  // Once at a time: a second press would check the old password against the new one, fail, and count against the
  // sign-in limit, and say "not right" about a password just changed.
  const send = useAction(async (formEl: HTMLFormElement) => {
    const form = new FormData(formEl);
    clearStatus();
    // Typed twice, as at the invitation: a typo in a password nobody can read would lock the member out.
    if (form.get('new_password') !== form.get('new_password_again')) {
      setErrors({ new_password_again: [t('invite.mismatch')] });
      return;
    }
    try {
      await api('PUT', '/me/password', { current_password: form.get('current_password'), new_password: form.get('new_password') });
      setErrors({});
      formEl.reset();
      announce(t('account.password_changed'));
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(refusalText(failure, ['current_password', 'new_password', 'new_password_again']), 'error');
    }
  });
  const change = (event: Event) => {
    event.preventDefault();
    void send.run(event.target as HTMLFormElement);
  };
  const others = useAction(async () => {
    try {
      const { data } = await api<{ data: { ended: number } }>('POST', '/session/others/sign-out', {});
      announce(t('account.others_ended', { count: data.ended }));
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  });
  const signOut = () =>
    endSession(
      onSignedOut,
      () => announce(t('signout.done')),
      (text) => announce(text, 'error'),
    );
  return (
    <section>
      <PageTitle text={t('account.title')} />
      <dl class="facts">
        <dt>{t('account.name')}</dt>
        <dd>{session.member.display_name}</dd>
        <dt>{t('signin.email')}</dt>
        <dd>{session.member.email}</dd>
        <dt>{t('account.role')}</dt>
        <dd>{t(`role.${session.member.role}`)}</dd>
      </dl>
      <form ref={formRef} class="panel" onSubmit={change} noValidate aria-labelledby="password-title">
        <h2 id="password-title">{t('account.password_title')}</h2>
        <label for="current-password">{t('account.current')}</label>
        <input
          id="current-password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          {...errorProps('current-error', errors.current_password)}
        />
        <FieldError id="current-error" messages={errors.current_password} />
        <label for="account-new-password">{t('account.new')}</label>
        <input
          id="account-new-password"
          name="new_password"
          type="password"
          autoComplete="new-password"
          {...errorProps('new-error', errors.new_password)}
        />
        <FieldError id="new-error" messages={errors.new_password} />
        <label for="account-new-password-again">{t('account.new_again')}</label>
        <input
          id="account-new-password-again"
          name="new_password_again"
          type="password"
          autoComplete="new-password"
          {...errorProps('new-again-error', errors.new_password_again)}
        />
        <FieldError id="new-again-error" messages={errors.new_password_again} />
        <button type="submit" aria-disabled={send.busy || undefined}>
          {t('account.change')}
        </button>
      </form>
      <h2>{t('account.sessions_title')}</h2>
      <p class="muted">{t('account.sessions_intro')}</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => others.run()} aria-disabled={others.busy || undefined}>
          {t('account.others')}
        </button>
        <button type="button" class="secondary" onClick={signOut}>
          {t('signout.button')}
        </button>
      </div>
    </section>
  );
}
