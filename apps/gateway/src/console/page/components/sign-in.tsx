import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import { t } from '../i18n';
import { adopt, type SessionView } from '../session';
import { errorProps, FieldError } from './field-error';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

/** E-mail and password; the answer never tells whether an e-mail has an account. */
export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionView) => void }) {
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    setBusy(true);
    setFields({});
    clearStatus();
    try {
      const { data } = await api<{ data: SessionView }>('POST', '/session', { email: form.get('email'), password: form.get('password') });
      announce(t('signin.done', { name: data.member.display_name }));
      onSignedIn(adopt(data));
    } catch (err) {
      const failure = err as ApiFailure;
      setFields(failure.fields ?? {});
      announce(failure.message, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow">
      <p class="brand">{t('app.name')}</p>
      <PageTitle text={t('signin.title')} />
      <form onSubmit={submit} noValidate>
        <label for="email">{t('signin.email')}</label>
        <input id="email" name="email" type="email" autoComplete="username" required {...errorProps('email-error', fields.email)} />
        <FieldError id="email-error" messages={fields.email} />
        <label for="password">{t('signin.password')}</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          {...errorProps('password-error', fields.password)}
        />
        <FieldError id="password-error" messages={fields.password} />
        <button type="submit" disabled={busy}>
          {busy ? t('signin.busy') : t('signin.submit')}
        </button>
      </form>
      <p class="muted">{t('signin.help')}</p>
    </main>
  );
}
