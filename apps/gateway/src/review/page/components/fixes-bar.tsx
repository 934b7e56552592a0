/**
 * How many fixes are in force, and undo of the latest (said when it left a row out or put one back, or all the hidden
 * rows); then the rows left out, each with a button that puts it back (a row left out from the rows with problems is
 * gone from that list), and the hidden rows left out together as one entry, put back together.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { listOf, numbers, t } from '../i18n';
import { fixHiddenRows, hiddenRowsLeftOut, lastFix, leaveOutRow, rowsLeftOut, undoFix } from '../state';
import type { ReviewView } from '../types';

export function FixesBar({ view, undoable }: { view: ReviewView; undoable: boolean }) {
  const fixes = (view.value_fixes || []).length;
  const last = lastFix(view)?.fix;
  const latest =
    last && (last.kind === 'leave_out' || last.kind === 'put_back')
      ? t(`fix_latest_${last.kind}`, { row: numbers.format(last.row) })
      : last && (last.kind === 'leave_out_hidden' || last.kind === 'put_back_hidden')
        ? t(`fix_latest_${last.kind}`)
        : null;
  return (
    <>
      <div id="fixes" class="fixes" hidden={fixes === 0}>
        <span id="fixes-count">{t('fixes_count', { count: fixes })}</span>
        {latest && (
          <span id="fix-latest" class="muted">
            {latest}
          </span>
        )}
        {undoable && (
          <button type="button" id="fix-undo" aria-describedby={latest ? 'fix-latest' : undefined} onClick={() => void undoFix()}>
            {t('fix_undo')}
          </button>
        )}
      </div>
      <RowsLeftOut rows={rowsLeftOut(view)} hidden={hiddenRowsLeftOut(view)} undoable={undoable} />
    </>
  );
}

/**
 * "Rows left out: 7, 12", each with "Put back" while the review is open; `hidden` rows the sheet hides left out
 * together come first, as one entry ("1,200 hidden rows") put back together. A row put back from here takes its
 * button away: the keyboard goes to the next row's (the previous one's past the last), else to "Undo last fix".
 */
function RowsLeftOut({ rows, hidden, undoable }: { rows: number[]; hidden: number; undoable: boolean }) {
  const list = useRef<HTMLUListElement>(null);
  /** The place of the button that had the keyboard, while one has it. */
  const focused = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = focused.current;
    if (at === null || list.current?.contains(document.activeElement)) return;
    focused.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const buttons = list.current?.querySelectorAll('button');
    const next = buttons?.length ? buttons[Math.min(at, buttons.length - 1)] : document.getElementById('fix-undo');
    next?.focus();
  }, [rows.join(','), hidden]);
  if (!rows.length && !hidden) return null;
  const title = t('rows_left_out_title', { count: rows.length + hidden });
  const hiddenWords = t('rows_left_out_hidden', { count: hidden });
  if (!undoable)
    return (
      <p id="rows-left-out" class="rows-left-out">
        {title} {listOf([...(hidden ? [hiddenWords] : []), ...rows.map((r) => numbers.format(r))])}
      </p>
    );
  return (
    <div id="rows-left-out" class="rows-left-out">
      <span id="rows-left-out-title">{title}</span>
      <ul
        ref={list}
        aria-labelledby="rows-left-out-title"
        onFocusIn={(e) => {
          const button = (e.target as Element).closest('button');
          focused.current = button ? [...(list.current?.querySelectorAll('button') ?? [])].indexOf(button) : null;
        }}
      >
        {hidden > 0 && (
          <li key="hidden">
            <span class="row-number">{hiddenWords}</span>
            {/* Named with what it puts back: all the hidden rows left out together, not one row. */}
            <button
              type="button"
              class="put-back"
              id="rows-left-out-hidden"
              aria-label={t('rows_left_out_hidden_put_back_label', { count: hidden })}
              onClick={() => void fixHiddenRows(true)}
            >
              {t('row_put_back_short')}
            </button>
          </li>
        )}
        {rows.map((row) => (
          <li key={row}>
            <span class="row-number">{numbers.format(row)}</span>
            {/* Named with its row (the visible words first): a screen reader says which row it puts back. */}
            <button
              type="button"
              class="put-back"
              aria-label={t('row_put_back_list_label', { row: numbers.format(row) })}
              onClick={() => void leaveOutRow(row, true)}
            >
              {t('row_put_back_short')}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
