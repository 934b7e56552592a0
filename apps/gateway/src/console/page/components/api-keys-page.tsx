import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, type ApiFailure } from '../api';
import { formatDate, t } from '../i18n';
import { useLeaveWarning } from '../router';
import { canChange, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { useLoad } from '../use-load';
import { useRemovalFocus } from '../use-removal-focus';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { errorProps, FieldError } from './field-error';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

interface KeyRow {
  id: string;
  prefix: string | null;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface IssuedKey {
  id: string;
  api_key: string;
  prefix: string;
  name: string | null;
}

/** A sentence about a key: by its name and prefix when it has a name, by its prefix (or id) otherwise. */
const aboutKey = (key: string, k: { prefix: string | null; name: string | null; id?: string }): string => {
  const prefix = k.prefix ?? k.id?.slice(0, 8) ?? '';
  return k.name ? t(`${key}_named`, { name: k.name, prefix }) : t(key, { prefix });
};

/** API keys: issue one (shown once, named if you like), see them by name and prefix, revoke one. */
export function ApiKeysPage({ session }: { session: SessionView }) {
  const list = useLoad<{ data: KeyRow[] }>('/api-keys');
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  // A key shown and not yet copied is lost if the page is left: it is never shown again, so leaving asks first.
  // The key copied is kept, not a flag: a copy that ends after another key was issued does not count for that one.
  const [copiedKey, setCopiedKey] = useState<string | null>(null);
  const uncopied = issued !== null && issued.api_key !== copiedKey;
  useLeaveWarning(uncopied ? t('keys.unsaved') : null);
  const [revoking, setRevoking] = useState<KeyRow | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const nameInput = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, errors);
  const editable = canChange(session);
  const revokeId = (k: KeyRow) => `revoke-${k.id}`;
  // A revoked key stays listed without its button: the focus goes on to another key's (or to the h1).
  const focus = useRemovalFocus(list.data?.data, revokeId);
  const panelTitle = useRef<HTMLHeadingElement>(null);
  const issueButton = useRef<HTMLButtonElement>(null);
  // The new key takes the focus (a screen reader reads it at once); when it is put away, the focus goes back to "Issue a key".
  const shown = issued !== null;
  useEffect(() => {
    if (shown) panelTitle.current?.focus();
  }, [shown]);
  const putAway = () => {
    issueButton.current?.focus();
    setIssued(null);
  };
  const issue = useAction(async () => {
    const name = nameInput.current?.value.trim() ?? '';
    // Another key takes the shown one's place: one not yet copied would be lost (still working, known to nobody).
    if (uncopied && !window.confirm(t('keys.unsaved_issue'))) return;
    try {
      const { data } = await api<{ data: IssuedKey }>('POST', '/api-keys', name ? { name } : {});
      setErrors({});
      if (nameInput.current) nameInput.current.value = '';
      setIssued(data);
      // No message at the foot of the page: the new key's panel takes the focus and says the same, and on a phone's
      // screen the message covered the key it spoke of.
      clearStatus();
      list.reload();
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(failureText(failure), 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void issue.run();
  };
  const revoke = async () => {
    const key = revoking!;
    setRevoking(null);
    try {
      await api('DELETE', `/api-keys/${key.id}`);
      // The key just shown, revoked: it is no longer one to copy.
      setIssued((shown) => (shown?.id === key.id ? null : shown));
      announce(aboutKey('keys.revoked', key));
      focus.removed(key);
      list.reload();
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };
  return (
    <section>
      <PageTitle text={t('keys.title')} headingRef={focus.heading} />
      <p>{t('keys.intro')}</p>
      {editable && (
        <form ref={formRef} onSubmit={submit} noValidate>
          <label for="key-name">{t('keys.name')}</label>
          <p id="key-name-hint" class="muted">
            {t('keys.name_hint')}
          </p>
          <input
            id="key-name"
            name="name"
            ref={nameInput}
            autoComplete="off"
            {...errorProps('key-name-error', errors.name)}
            aria-describedby={errors.name ? 'key-name-hint key-name-error' : 'key-name-hint'}
          />
          <FieldError id="key-name-error" messages={errors.name} />
          <div class="actions">
            <button type="submit" ref={issueButton} aria-disabled={issue.busy || undefined}>
              {t('keys.issue')}
            </button>
          </div>
        </form>
      )}
      {issued && (
        <div class="panel" role="region" aria-labelledby="new-key-title">
          <h2 id="new-key-title" ref={panelTitle} tabIndex={-1}>
            {issued.name ? t('keys.new_title_named', { name: issued.name }) : t('keys.new_title')}
          </h2>
          <p>{t('keys.new_once')}</p>
          <p>
            <code class="secret" id="new-key">
              {issued.api_key}
            </code>
          </p>
          <div class="actions">
            <CopyButton text={issued.api_key} label={t('keys.copy')} onCopied={setCopiedKey} />
            <button type="button" class="secondary" onClick={putAway}>
              {t('keys.done')}
            </button>
          </div>
        </div>
      )}
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={list.reload} />
      {list.data && list.data.data.length === 0 && <p>{t('keys.none')}</p>}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap stack" tabIndex={0}>
          <table>
            <caption class="visually-hidden">{t('keys.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('keys.col.name')}</th>
                <th scope="col">{t('keys.col.prefix')}</th>
                <th scope="col">{t('keys.col.created')}</th>
                <th scope="col">{t('keys.col.used')}</th>
                <th scope="col">{t('keys.col.state')}</th>
                {editable && <th scope="col">{t('keys.col.action')}</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((k) => (
                <tr key={k.id}>
                  {/* A long name without spaces breaks anywhere: it pushed the Revoke buttons off the screen. */}
                  <td class="wrap" data-label={t('keys.col.name')}>
                    {k.name ?? <span class="muted">{t('keys.unnamed')}</span>}
                  </td>
                  <td data-label={t('keys.col.prefix')}>
                    <code>{k.prefix ? `tsk_${k.prefix}…` : t('keys.no_prefix')}</code>
                  </td>
                  <td data-label={t('keys.col.created')}>{formatDate(k.created_at)}</td>
                  <td data-label={t('keys.col.used')}>{k.last_used_at ? formatDate(k.last_used_at) : t('keys.never')}</td>
                  <td data-label={t('keys.col.state')}>
                    {k.revoked_at ? t('keys.revoked_at', { date: formatDate(k.revoked_at) }) : t('keys.active')}
                  </td>
                  {editable && (
                    <td class="action">
                      {!k.revoked_at && (
                        <button type="button" id={revokeId(k)} class="danger" onClick={() => setRevoking(k)}>
                          {aboutKey('keys.revoke', k)}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? aboutKey('keys.revoke_title', revoking) : ''}
        body={t('keys.revoke_body')}
        confirm={t('keys.revoke_confirm')}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      />
    </section>
  );
}
