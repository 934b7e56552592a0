/**
 * Says which rows a workbook's sheet hides (by hand, a filter, a collapsed group): Excel does not show them, but the
 * file holds them and they are delivered like the others, which the reviewer may not expect (a hidden subtotal, a
 * filtered-out record). While the review is open, each hidden row still delivered has "Leave out" beside its number,
 * listed 50 at a time ("Previous hidden rows", "Next hidden rows" past 50, so each of up to 1,000 is in reach and
 * the notice never holds more than 50 of them), and "Leave all hidden rows out" leaves them all out; a row left out
 * is listed with the rows left out (fixes-bar.tsx), where it can be put back. A closed review
 * shows the notice as text. The tables mark a hidden row still delivered (rows-table.tsx).
 *
 * When the service knows every row the sheet hides (`hidden_rows_known`), "Leave all hidden rows out" is one fix
 * (`leave_out_hidden`), whatever their number, past the 1,000 listed too. Then the notice says how many are left out
 * and offers "Put the hidden rows back" (`put_back_hidden`); a hidden row put back on its own since
 * (`hidden_rows_put_back`) is delivered, listed with its own "Leave out".
 *
 * A sheet may hide more rows than the review lists (the state's `hidden_rows`, the first 1,000): the notice then says
 * how many it hides in all (`hidden_rows_total`), that only the first are listed and the others are delivered like any
 * row. When they are not all known (a sheet hiding rows in more than 10,000 places), its button leaves them out one
 * by one and only "the listed hidden rows", not all of them; each row left out being one fix, it says how many fixes
 * a review keeps (MAX_FIXES), which leaving out the listed rows may reach.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { listOf, numbers, t } from '../i18n';
import { MAX_FIXES } from '../limits';
import {
  announce,
  fixHiddenRows,
  hiddenRowsIn,
  hiddenRowsLeftOut,
  hiddenRowsOutTogether,
  leaveOutRow,
  leaveOutRows,
  type State,
} from '../state';
import type { ReviewView } from '../types';

/** Row numbers the notice names, and hidden rows still delivered listed at a time with their button. */
const ROWS_SHOWN = 50;

/** `rows` as the notice names them: the first 50, then how many more. */
function rowNumbers(rows: number[]): string {
  const named = listOf(rows.slice(0, ROWS_SHOWN).map((r) => numbers.format(r)));
  return rows.length > ROWS_SHOWN ? t('hidden_rows_more', { rows: named, count: rows.length - ROWS_SHOWN }) : named;
}

/** Which button had the keyboard: its place among the notice's buttons, the row of a row's button, and its id. */
interface Focused {
  index: number;
  row: number | null;
  id: string;
}

/** The button that undoes what one did: once all the hidden rows are left out (or put back), the keyboard goes to it. */
const COUNTERPART: Record<string, string> = {
  'hidden-rows-leave-all': 'hidden-rows-put-back',
  'hidden-rows-put-back': 'hidden-rows-leave-all',
};

export function HiddenRowsNotice({ view, leaving }: { view: ReviewView; leaving: State['leavingRows'] }) {
  const hidden = view.hidden_rows ?? [];
  const active = view.phase === 'active';
  const stillIn = hiddenRowsIn(view);
  // Every hidden row known: left out (or put back) all at once, with one fix. Left out so now (but for those put back since).
  const known = view.hidden_rows_known === true;
  const allOut = hiddenRowsOutTogether(view);
  const together = leaving?.together ?? null;
  const notice = useRef<HTMLDivElement>(null);
  const focused = useRef<Focused | null>(null);
  /** Which 50 of the hidden rows still delivered are listed (0 the first 50); kept in range as rows leave the list. */
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(stillIn.length / ROWS_SHOWN));
  const at = Math.min(page, pages - 1);
  const first = at * ROWS_SHOWN;
  const listed = stillIn.slice(first, first + ROWS_SHOWN);
  // A row left out takes its button away (and the last ones "Leave all…"): the keyboard goes to the next row's button
  // as the list reads now (the row after it slides into its place; past the end of the last 50, the one before it),
  // else to the button in the notice at its place, else to the notice itself, which then says the hidden rows are all
  // left out. "Leave all hidden rows out" done with one fix hands the keyboard to "Put the hidden rows back", and back.
  useLayoutEffect(() => {
    const was = focused.current;
    if (was === null || notice.current?.contains(document.activeElement)) return;
    focused.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const rowButtons = [...(notice.current?.querySelectorAll<HTMLButtonElement>('button.leave-out') ?? [])];
    const buttons = notice.current?.querySelectorAll('button');
    const counterpart = COUNTERPART[was.id] ? notice.current?.querySelector<HTMLButtonElement>(`#${COUNTERPART[was.id]}`) : null;
    const next = counterpart
      ? counterpart
      : was.row !== null && rowButtons.length
        ? (rowButtons.find((b) => Number(b.dataset.row) > was.row!) ?? rowButtons[rowButtons.length - 1])
        : buttons?.length
          ? buttons[Math.min(was.index, buttons.length - 1)]
          : notice.current;
    next?.focus();
  }, [stillIn.join(','), leaving === null, allOut]);
  /** Which are listed, by the count of them: a last 50 of one row says that row ("Listed: row 51 of 51"), not a range of it. */
  const listedWords = (from: number) => {
    const last = Math.min(from + ROWS_SHOWN, stillIn.length);
    return t('hidden_rows_listed', { count: last - from, first: from + 1, last, total: stillIn.length });
  };
  /** Lists the 50 before or after; the focus stays on the button pressed, and the page's message says which are listed now. */
  const turn = (by: -1 | 1) => {
    const to = at + by;
    if (leaving || to < 0 || to >= pages) return;
    setPage(to);
    announce(listedWords(to * ROWS_SHOWN));
  };
  if (!hidden.length) return null;
  const count = hidden.length;
  // More hidden than listed: the first `count` are named and can be left out here, the others are delivered unnamed.
  const total = Math.max(view.hidden_rows_total ?? count, count);
  const cut = total > count;
  const out = hiddenRowsLeftOut(view);
  // "Leave all hidden rows out": while more than one is delivered (with every one known, also while unlisted ones are),
  // and until what it started is done; "Put the hidden rows back" while they are left out together.
  const leaveAll =
    active && ((allOut ? stillIn.length > 1 : stillIn.length > 1 || (known && cut)) || (leaving !== null && !together?.putBack));
  const putBack = active && (allOut || together?.putBack === true);
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
        focused.current = button
          ? {
              index: [...(notice.current?.querySelectorAll('button') ?? [])].indexOf(button),
              row: button.dataset.row ? Number(button.dataset.row) : null,
              id: button.id,
            }
          : null;
      }}
    >
      <p id="hidden-rows-text">
        {cut
          ? `${t('hidden_rows_total', { count: total })} ${t('hidden_rows_first', { count, rows: rowNumbers(hidden) })}`
          : t('hidden_rows', { count, rows: rowNumbers(hidden) })}{' '}
        {t(!active ? 'hidden_rows_read' : allOut ? 'hidden_rows_unseen' : 'hidden_rows_delivered', { count })}
        {cut && active && !allOut ? ` ${t('hidden_rows_others', { count: total - count })}` : ''}
      </p>
      {/* Left out together: how many (all, but for those put back one by one since, listed below with their button). */}
      {active && allOut && (
        <p id="hidden-rows-all-out">
          {out === total ? t('hidden_rows_together_out', { count: out }) : t('hidden_rows_together_out_but', { count: out, total })}
        </p>
      )}
      {active && stillIn.length > 0 && (
        <div class="hidden-rows-in">
          <span id="hidden-rows-in-title">{t('hidden_rows_in_title', { count: stillIn.length })}</span>
          <ul id="hidden-rows-in-list" aria-labelledby="hidden-rows-in-title">
            {listed.map((row) => (
              <li key={row}>
                <span class="row-number">{numbers.format(row)}</span>
                {/* Named with its row (the visible words first): a screen reader says which row it leaves out. */}
                <button
                  type="button"
                  class="leave-out"
                  data-row={row}
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
          {/* Past 50, the list is turned 50 at a time: every row in reach, never more than 50 buttons in the notice. */}
          {stillIn.length > ROWS_SHOWN && (
            <div class="hidden-rows-pager">
              <span id="hidden-rows-listed">{listedWords(first)}</span>
              <button
                type="button"
                id="hidden-rows-prev"
                aria-controls="hidden-rows-in-list"
                aria-describedby="hidden-rows-listed"
                aria-disabled={leaving || at === 0 ? 'true' : undefined}
                onClick={() => turn(-1)}
              >
                {t('hidden_rows_prev')}
              </button>
              <button
                type="button"
                id="hidden-rows-next"
                aria-controls="hidden-rows-in-list"
                aria-describedby="hidden-rows-listed"
                aria-disabled={leaving || at === pages - 1 ? 'true' : undefined}
                onClick={() => turn(1)}
              >
                {t('hidden_rows_next')}
              </button>
            </div>
          )}
        </div>
      )}
      {/* Not all known: only the listed rows can be left out from here, one fix each, and the fixes a review keeps may
          run out first. Known, one fix leaves them all out. */}
      {leaveAll && cut && !known && <p id="hidden-rows-limit">{t('hidden_rows_fix_limit', { max: MAX_FIXES })}</p>}
      {leaveAll && (
        <button
          type="button"
          id="hidden-rows-leave-all"
          aria-disabled={leaving ? 'true' : undefined}
          aria-describedby={cut && !known ? 'hidden-rows-limit' : undefined}
          onClick={() => void (known ? fixHiddenRows() : leaveOutRows(hiddenRowsIn(view)))}
        >
          {t(cut && !known ? 'hidden_rows_leave_listed' : 'hidden_rows_leave_all')}
        </button>
      )}
      {putBack && (
        <button
          type="button"
          id="hidden-rows-put-back"
          aria-disabled={leaving ? 'true' : undefined}
          onClick={() => void fixHiddenRows(true)}
        >
          {t('hidden_rows_put_back_all')}
        </button>
      )}
      {active && !allOut && !stillIn.length && !leaving && (
        <p id="hidden-rows-all-out">{t(cut ? 'hidden_rows_listed_all_out' : 'hidden_rows_all_out', { count })}</p>
      )}
    </div>
  );
}
