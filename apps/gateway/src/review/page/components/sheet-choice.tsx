/** For a workbook with more than one sheet with data: which sheet the columns and rows are read from. */
import { isolate, t } from '../i18n';
import { chooseSheet } from '../state';
import type { ReviewView } from '../types';

/**
 * A closed select changes at each arrow key, and a sheet is read whole when chosen (the select waits,
 * disabled, meanwhile, and a key pressed then was lost): the sheet is chosen once the reviewer stops.
 */
const SHEET_SETTLE_MS = 500;
let choosing: ReturnType<typeof setTimeout> | undefined;
function chooseWhenSettled(sheet: string): void {
  clearTimeout(choosing);
  choosing = setTimeout(() => void chooseSheet(sheet), SHEET_SETTLE_MS);
}

export function SheetChoice({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  // Sheets without data have nothing to map; the one read is listed whatever it holds.
  const choices = (view.sheets || []).filter((s) => s.has_data || s.name === view.sheet);
  if (choices.length < 2 || view.sheet === null) return null;
  return (
    <div class="sheet-choice">
      <label for="sheet-choice">{t('sheet_label')}</label>
      <select
        id="sheet-choice"
        value={view.sheet}
        disabled={readOnly || busy}
        aria-describedby="sheet-choice-hint"
        onChange={(e) => chooseWhenSettled(e.currentTarget.value)}
      >
        {choices.map((s) => (
          <option value={s.name}>{s.state === 'visible' ? isolate(s.name) : t('sheet_hidden', { name: isolate(s.name) })}</option>
        ))}
      </select>
      <p id="sheet-choice-hint" class="muted">
        {t('sheet_hint')}
      </p>
    </div>
  );
}
