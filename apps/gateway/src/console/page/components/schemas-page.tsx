import { useState } from 'preact/hooks';
import type { Paged } from '../api';
import { formatDate, t } from '../i18n';
import { canChange, type SessionView } from '../session';
import { useLoad } from '../use-load';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { Pager } from './pager';

interface SchemaRow {
  id: string;
  name: string;
  fields: Record<string, unknown>;
  updated_at: string;
}

/** The organization's target schemas. */
export function SchemasPage({ session }: { session: SessionView }) {
  const [page, setPage] = useState(1);
  const list = useLoad<Paged<SchemaRow>>(`/schemas?page=${page}`);
  return (
    <section>
      <PageTitle text={t('schemas.title')} />
      <p>{t('schemas.intro')}</p>
      {canChange(session) && (
        <p>
          <a class="button" href="/console/schemas/new">
            {t('schemas.new')}
          </a>
        </p>
      )}
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={list.reload} />
      {list.data && list.data.meta.total === 0 && <p>{t('schemas.none')}</p>}
      {list.data && list.data.data.length > 0 && (
        <ul class="cards">
          {list.data.data.map((s) => (
            <li key={s.id}>
              <a href={`/console/schemas/${s.id}`}>{s.name}</a>
              <span class="muted">
                {' '}
                · {t('schemas.fields', { count: Object.keys(s.fields).length })} ·{' '}
                {t('schemas.updated', { date: formatDate(s.updated_at) })}
              </span>
              <br />
              <code class="muted">{s.id}</code>
            </li>
          ))}
        </ul>
      )}
      {list.data && (
        <Pager
          page={list.data.meta.current_page}
          lastPage={list.data.meta.last_page}
          total={list.data.meta.total}
          onPage={setPage}
          label={t('schemas.pages')}
        />
      )}
    </section>
  );
}
