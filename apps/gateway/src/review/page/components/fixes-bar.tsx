/**
 * How many fixes are in force, and undo of the latest (said when it left a row out or put one back); then the rows
 * left out, each with a button that puts it back (a row left out from the rows with problems is gone from that list).
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { listOf, numbers, t } from '../i18n';
import { lastFix, leaveOutRow, rowsLeftOut, undoFix } from '../state';
import type { ReviewView } from '../types';

export function FixesBar({ view, undoable }: { view: ReviewView; undoable: boolean }) {
  const fixes = (view.value_fixes || []).length;
  const last = lastFix(view)?.fix;
  const latest =
    last && (last.kind === 'leave_out' || last.kind === 'put_back')
      ? t(`fix_latest_${last.kind}`, { row: numbers.format(last.row) })
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
      <RowsLeftOut rows={rowsLeftOut(view)} undoable={undoable} />
    </>
  );
}

/**
 * "Rows left out: 7, 12", each with "Put back" while the review is open. A row put back from here takes its
 * button away: the keyboard goes to the next row's (the previous one's past the last), else to "Undo last fix".
 */
function RowsLeftOut({ rows, undoable }: { rows: number[]; undoable: boolean }) {
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
  }, [rows.join(',')]);
  if (!rows.length) return null;
  const title = t('rows_left_out_title', { count: rows.length });
  if (!undoable)
    return (
      <p id="rows-left-out" class="rows-left-out">
        {title} {listOf(rows.map((r) => numbers.format(r)))}
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
        {rows.map((row) => (
          <li>
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
