import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, refusalText } from '../api';
import { t } from '../i18n';
import { adopt, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { errorProps, FieldError } from './field-error';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

/** The sign-in page: e-mail and password; the answer never tells whether an e-mail has an account. */
export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionView) => void }) {
  return (
    <main id="main" class="narrow" tabIndex={-1}>
      <p class="brand">{t('app.name')}</p>
      <PageTitle text={t('signin.title')} />
      <SignInForm onSignedIn={onSignedIn} />
      <p class="muted">{t('signin.help')}</p>
    </main>
  );
}

/**
 * When a session ends while the console is open (idle time, "sign out everywhere else", a password changed
 * elsewhere), a modal over the page as it was: signing in again as the same member goes on where they were, with
 * what they had typed, to send it once more. Whoever signs in as someone else gets a console of their own.
 */
export function SignInAgain({
  email,
  onSignedIn,
  onSomeoneElse,
}: {
  email: string;
  onSignedIn: (s: SessionView) => void;
  onSomeoneElse: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog || dialog.open) return;
    dialog.showModal();
    dialog.querySelector<HTMLInputElement>('#password')?.focus();
  }, []);
  // Escape does not close it: behind it is a page whose calls would all be refused. The browser lets a page refuse
  // one Escape, not two in a row (a dialog must not trap the person), so a dialog closed anyway is opened again.
  const reopen = () => {
    const dialog = ref.current;
    if (dialog?.isConnected && !dialog.open) dialog.showModal();
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby="signin-again-title"
      aria-describedby="signin-again-intro"
      onCancel={(e) => e.preventDefault()}
      onClose={reopen}
    >
      <h2 id="signin-again-title">{t('signin.again_title')}</h2>
      <p id="signin-again-intro">{t('signin.again_intro')}</p>
      <SignInForm onSignedIn={onSignedIn} email={email} inDialog />
      <div class="actions">
        <button type="button" class="secondary" onClick={onSomeoneElse}>
          {t('signin.someone_else')}
        </button>
      </div>
    </dialog>
  );
}

function SignInForm({ onSignedIn, email, inDialog }: { onSignedIn: (s: SessionView) => void; email?: string; inDialog?: boolean }) {
  const [fields, setFields] = useState<Record<string, string[]>>({});
  // In the dialog, the page's live region is behind it (inert, unheard): a refusal is said in the dialog itself.
  const [refusal, setRefusal] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, fields);
  const send = useAction(async (form: FormData) => {
    setFields({});
    setRefusal(null);
    clearStatus();
    try {
      const { data } = await api<{ data: SessionView }>('POST', '/session', { email: form.get('email'), password: form.get('password') });
      announce(t('signin.done', { name: data.member.display_name }));
      onSignedIn(adopt(data));
    } catch (err) {
      const failure = err as ApiFailure;
      setFields(failure.fields ?? {});
      // The API's field messages go beside the fields; the refusal points there (its own message says nothing of what).
      const said = refusalText(failure, ['email', 'password']);
      if (inDialog) setRefusal(said);
      else announce(said, 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void send.run(new FormData(event.target as HTMLFormElement));
  };
  return (
    <form ref={formRef} onSubmit={submit} noValidate>
      {inDialog && (
        <p role="alert" class={refusal ? 'notice error' : 'visually-hidden'}>
          {refusal}
        </p>
      )}
      <label for="email">{t('signin.email')}</label>
      <input
        id="email"
        name="email"
        type="email"
        autoComplete="username"
        defaultValue={email ?? ''}
        required
        {...errorProps('email-error', fields.email)}
      />
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
  );
}
