import { t } from '../i18n';

/**
 * Previous / next for a list paged on the server, with where we are. At either end the button is aria-disabled, not
 * disabled: a disabled button loses the focus to the page's body, right after the press that reached the last page.
 */
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
      <button type="button" class="secondary" aria-disabled={page <= 1 || undefined} onClick={() => page > 1 && onPage(page - 1)}>
        {t('pager.previous')}
      </button>
      <span>{t('pager.position', { page, last: lastPage, count: total })}</span>
      <button
        type="button"
        class="secondary"
        aria-disabled={page >= lastPage || undefined}
        onClick={() => page < lastPage && onPage(page + 1)}
      >
        {t('pager.next')}
      </button>
    </nav>
  );
}
