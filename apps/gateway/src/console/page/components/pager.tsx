import { t } from '../i18n';

/** Previous / next for a list paged on the server, with where we are. */
export function Pager({
  page,
  lastPage,
  total,
  onPage,
  label,
}: {
  page: number;
  lastPage: number;
  total: number;
  onPage: (p: number) => void;
  label: string;
}) {
  if (total === 0) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('pager.previous')}
      </button>
      <span>{t('pager.position', { page, last: lastPage, count: total })}</span>
      <button type="button" class="secondary" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        {t('pager.next')}
      </button>
    </nav>
  );
}
