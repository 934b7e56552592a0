import { useState } from 'preact/hooks';
import type { Paged } from '../api';
import { formatDate, has, t } from '../i18n';
import { useLoad } from '../use-load';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { Pager } from './pager';

interface Entry {
  id: string;
  type: string;
  actor: { member_id: string; email: string } | { operator: true };
  at: string;
  details: Record<string, unknown>;
}

/** Who did what and when, newest first. */
export function AuditPage() {
  const [page, setPage] = useState(1);
  const log = useLoad<Paged<Entry>>(`/audit?page=${page}`);
  return (
    <section>
      <PageTitle text={t('audit.title')} />
      <LoadState loading={log.loading && !log.data} error={log.error} onRetry={log.reload} />
      {log.data && log.data.meta.total === 0 && <p>{t('audit.none')}</p>}
      {log.data && log.data.data.length > 0 && (
        // Numbered across pages: page 2 goes on where page 1 ended.
        <ol class="timeline" start={log.data.meta.from ?? 1}>
          {log.data.data.map((e) => (
            <li key={e.id}>
              <time dateTime={e.at}>{formatDate(e.at)}</time> <strong>{'operator' in e.actor ? t('audit.operator') : e.actor.email}</strong>{' '}
              {describe(e)}
            </li>
          ))}
        </ol>
      )}
      {log.data && (
        <Pager
          page={log.data.meta.current_page}
          lastPage={log.data.meta.last_page}
          total={log.data.meta.total}
          onPage={setPage}
          label={t('audit.pages')}
        />
      )}
    </section>
  );
}

/** The detail that names what an entry was about, where it is not the member's or invitee's `email`. */
const NAMED_BY: Record<string, string> = { ApiKeyRevoked: 'prefix', SchemaDeleted: 'name', ProviderDeleted: 'name' };

function describe(e: Entry): string {
  const params: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(e.details)) if (typeof v === 'string' || typeof v === 'number') params[k] = v;
  for (const name of ['role', 'previous_role']) {
    const role = e.details[name];
    if (typeof role === 'string') params[name] = t(`role.${role}`);
  }
  if (e.type === 'ReviewQuotaChanged') {
    const quota = e.details.review_preparations;
    return typeof quota === 'number' ? t('audit.ReviewQuotaChanged', { ...params, count: quota }) : t('audit.ReviewQuotaChanged_unlimited');
  }
  // A test event says whether it arrived (entries from before the outcome was recorded keep the shorter sentence).
  if (e.type === 'WebhookTestSent' && typeof e.details.delivered === 'boolean')
    return t(e.details.delivered ? 'audit.WebhookTestSent_delivered' : 'audit.WebhookTestSent_failed', params);
  // An invitation for a member already there: a link to set a new password.
  if (e.details.password_reset === true && has(`audit.${e.type}_reset`)) return t(`audit.${e.type}_reset`, params);
  // A key issued with a name is called by it, beside its prefix.
  const named = `audit.${e.type}_named`;
  if (typeof e.details.name === 'string' && has(named)) return t(named, params);
  // Entries recorded before the log named whom or what a change was about keep the older sentence.
  const unnamed = `audit.${e.type}_unnamed`;
  const key = typeof e.details[NAMED_BY[e.type] ?? 'email'] !== 'string' && has(unnamed) ? unnamed : `audit.${e.type}`;
  return has(key) ? t(key, params) : e.type;
}
