import { useLayoutEffect, useRef } from 'preact/hooks';
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
  const nav = useRef<HTMLElement>(null);
  // "Go to the last page" goes with the page it was on: the keyboard goes on to the pager drawn for the last page.
  const wentBack = useRef(false);
  useLayoutEffect(() => {
    if (!wentBack.current || page > lastPage) return;
    wentBack.current = false;
    nav.current?.querySelector<HTMLElement>('button')?.focus();
  }, [page, lastPage]);
  if (total === 0) return null;
  // A page past the last (the list shrank, or an old address): not "Page 9 of 1", but what is there, and the way back.
  if (page > lastPage)
    return (
      <nav class="pager" aria-label={label} ref={nav}>
        <span>{t('pager.past_end', { page, count: lastPage })}</span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            wentBack.current = true;
            onPage(lastPage);
          }}
        >
          {t('pager.last')}
        </button>
      </nav>
    );
  return (
    <nav class="pager" aria-label={label} ref={nav}>
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
