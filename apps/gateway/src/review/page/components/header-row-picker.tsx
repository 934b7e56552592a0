/**
 * For an uploaded table: which of its first rows holds the column names, when neither the first row nor the row under
 * a title found is it (a report's lines of two values above its table). Its rows are read when the reviewer asks; a
 * row is taken once the reviewer says so, not on each arrow key.
 */
import { useState } from 'preact/hooks';
import { cutText, isolate, t } from '../i18n';
import { chooseHeaderRow, topRows } from '../state';
import type { ReviewView } from '../types';

export function HeaderRowPicker({ view, busy }: { view: ReviewView; busy: boolean }) {
  const current = view.input_has_header ? view.rows_above_header.length : -1;
  const [rows, setRows] = useState<string[] | null>(null);
  const [chosen, setChosen] = useState(current);
  const [opening, setOpening] = useState(false);
  const open = async () => {
    setOpening(true);
    const read = await topRows();
    setOpening(false);
    if (!read) return;
    setRows(read);
    // The keyboard goes to the row now taken (or the first), as a radio group's focus does.
    requestAnimationFrame(() => document.getElementById(`header-row-${Math.max(0, current)}`)?.focus());
  };
  if (!rows)
    return (
      <button type="button" id="header-row-pick" disabled={busy || opening} onClick={() => void open()}>
        {t('header_row_pick')}
      </button>
    );
  return (
    <form
      class="header-row-picker"
      onSubmit={(e) => {
        e.preventDefault();
        void chooseHeaderRow(true, chosen);
      }}
    >
      <fieldset>
        <legend>{t('header_row_legend')}</legend>
        {rows.map((text, i) => (
          <label class="check" key={i}>
            <input type="radio" name="header-row" id={`header-row-${i}`} checked={chosen === i} onChange={() => setChosen(i)} />
            {t('header_row_option', { row: i + 1, text: isolate(cutText(text)) })}
          </label>
        ))}
      </fieldset>
      <button type="submit" id="header-row-use" disabled={busy || chosen < 0 || chosen === current}>
        {t('header_row_use')}
      </button>
    </form>
  );
}
