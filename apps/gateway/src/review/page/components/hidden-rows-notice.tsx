/**
 * Says which rows a workbook's sheet hides (by hand, a filter, a collapsed group): Excel does not show them, but the
 * file holds them and they are delivered like the others, which the reviewer may not expect (a hidden subtotal, a
 * filtered-out record). While the review is open, each hidden row still delivered has "Leave out" beside its number,
 * and "Leave all hidden rows out" leaves them out one after the other; a row left out is listed with the rows left
 * out (fixes-bar.tsx), where it can be put back. A closed review shows the notice as text.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { listOf, numbers, t } from '../i18n';
import { hiddenRowsIn, leaveOutRow, leaveOutRows, type State } from '../state';
import type { ReviewView } from '../types';

/** Row numbers the notice names, and hidden rows still delivered listed with their button: past these it says how many more. */
const ROWS_SHOWN = 50;

/** `rows` as the notice names them: the first 50, then how many more. */
function rowNumbers(rows: number[]): string {
  const named = listOf(rows.slice(0, ROWS_SHOWN).map((r) => numbers.format(r)));
  return rows.length > ROWS_SHOWN ? t('hidden_rows_more', { rows: named, count: rows.length - ROWS_SHOWN }) : named;
}

export function HiddenRowsNotice({ view, leaving }: { view: ReviewView; leaving: State['leavingRows'] }) {
  const hidden = view.hidden_rows ?? [];
  const active = view.phase === 'active';
  const stillIn = hiddenRowsIn(view);
  const notice = useRef<HTMLDivElement>(null);
  /** The place of the button that had the keyboard (among the notice's buttons, in order), while one has it. */
  const focused = useRef<number | null>(null);
  // A row left out takes its button away (and the last ones "Leave all…"): the keyboard goes to the next button in
  // the notice, else to the notice itself, which then says the hidden rows are all left out.
  useLayoutEffect(() => {
    const at = focused.current;
    if (at === null || notice.current?.contains(document.activeElement)) return;
    focused.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const buttons = notice.current?.querySelectorAll('button');
    (buttons?.length ? buttons[Math.min(at, buttons.length - 1)] : notice.current)?.focus();
  }, [stillIn.join(','), leaving === null]);
  if (!hidden.length) return null;
  const count = hidden.length;
  const listed = stillIn.slice(0, ROWS_SHOWN);
  return (
    <div
      id="hidden-rows"
      class="notice warn hidden-rows"
      role="note"
      data-notice="hidden_rows"
      aria-labelledby="hidden-rows-text"
      tabindex={-1}
      ref={notice}
      onFocusIn={(e) => {
        const button = (e.target as Element).closest('button');
        focused.current = button ? [...(notice.current?.querySelectorAll('button') ?? [])].indexOf(button) : null;
      }}
    >
      <p id="hidden-rows-text">
        {t('hidden_rows', { count, rows: rowNumbers(hidden) })} {t(active ? 'hidden_rows_delivered' : 'hidden_rows_read', { count })}
      </p>
      {active && stillIn.length > 0 && (
        <div class="hidden-rows-in">
          <span id="hidden-rows-in-title">{t('hidden_rows_in_title', { count: stillIn.length })}</span>
          <ul aria-labelledby="hidden-rows-in-title">
            {listed.map((row) => (
              <li key={row}>
                <span class="row-number">{numbers.format(row)}</span>
                {/* Named with its row (the visible words first): a screen reader says which row it leaves out. */}
                <button
                  type="button"
                  class="leave-out"
                  aria-label={t('hidden_row_leave_out_list_label', { row: numbers.format(row) })}
                  aria-disabled={leaving ? 'true' : undefined}
                  onClick={() => {
                    if (!leaving) void leaveOutRow(row);
                  }}
                >
                  {t('hidden_row_leave_out_short')}
                </button>
              </li>
            ))}
          </ul>
          {stillIn.length > ROWS_SHOWN && (
            <p class="hidden-rows-more">{t('hidden_rows_in_more', { count: stillIn.length - ROWS_SHOWN })}</p>
          )}
        </div>
      )}
      {/* Shown while more than one is still delivered, and until the last one is left out once pressed. */}
      {active && (stillIn.length > 1 || leaving) && (
        <button
          type="button"
          id="hidden-rows-leave-all"
          aria-disabled={leaving ? 'true' : undefined}
          onClick={() => void leaveOutRows(hiddenRowsIn(view))}
        >
          {t('hidden_rows_leave_all')}
        </button>
      )}
      {active && !stillIn.length && !leaving && <p id="hidden-rows-all-out">{t('hidden_rows_all_out', { count })}</p>}
    </div>
  );
}
