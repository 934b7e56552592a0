import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, type ApiFailure } from '../api';
import { formatDate, t } from '../i18n';
import { canChange, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';
import { useRemovalFocus } from '../use-removal-focus';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { announce } from './status';

interface KeyRow {
  id: string;
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** API keys: issue one (shown once), see them by prefix, revoke one. */
export function ApiKeysPage({ session }: { session: SessionView }) {
  const list = useLoad<{ data: KeyRow[] }>('/api-keys');
  const [issued, setIssued] = useState<{ api_key: string; prefix: string } | null>(null);
  const [revoking, setRevoking] = useState<KeyRow | null>(null);
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
    try {
      const { data } = await api<{ data: { api_key: string; prefix: string } }>('POST', '/api-keys', {});
      setIssued(data);
      announce(t('keys.issued'));
      list.reload();
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  });
  const revoke = async () => {
    const key = revoking!;
    setRevoking(null);
    try {
      await api('DELETE', `/api-keys/${key.id}`);
      announce(t('keys.revoked', { prefix: key.prefix ?? key.id }));
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
        <button type="button" ref={issueButton} onClick={() => issue.run()} aria-disabled={issue.busy || undefined}>
          {t('keys.issue')}
        </button>
      )}
      {issued && (
        <div class="panel" role="region" aria-labelledby="new-key-title">
          <h2 id="new-key-title" ref={panelTitle} tabIndex={-1}>
            {t('keys.new_title')}
          </h2>
          <p>{t('keys.new_once')}</p>
          <p>
            <code class="secret" id="new-key">
              {issued.api_key}
            </code>
          </p>
          <div class="actions">
            <CopyButton text={issued.api_key} label={t('keys.copy')} />
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
                          {t('keys.revoke', { prefix: k.prefix ?? k.id.slice(0, 8) })}
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
        title={t('keys.revoke_title', { prefix: revoking?.prefix ?? '' })}
        body={t('keys.revoke_body')}
        confirm={t('keys.revoke_confirm')}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      />
    </section>
  );
}
