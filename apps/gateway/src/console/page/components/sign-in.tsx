import { useRef, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import { t } from '../i18n';
import { adopt, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { errorProps, FieldError } from './field-error';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

/** E-mail and password; the answer never tells whether an e-mail has an account. */
export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionView) => void }) {
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, fields);
  const send = useAction(async (form: FormData) => {
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
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(new FormData(event.target as HTMLFormElement));
  };
  return (
    <main id="main" class="narrow">
      <p class="brand">{t('app.name')}</p>
      <PageTitle text={t('signin.title')} />
      <form ref={formRef} onSubmit={submit} noValidate>
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
        <button type="submit" aria-disabled={send.busy || undefined}>
          {send.busy ? t('signin.busy') : t('signin.submit')}
        </button>
      </form>
      <p class="muted">{t('signin.help')}</p>
    </main>
  );
}
