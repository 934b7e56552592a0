/** For a workbook with more than one sheet with data: which sheet the columns and rows are read from. */
import { isolate, t } from '../i18n';
import { chooseSourceWhenSettled } from '../state';
import type { ReviewView } from '../types';

export function SheetChoice({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  // Sheets without data have nothing to map; the one read is listed whatever it holds.
  const choices = (view.sheets || []).filter((s) => s.has_data || s.name === view.sheet);
  if (choices.length < 2 || view.sheet === null) return null;
  return (
    <div class="sheet-choice">
      <label for="sheet-choice">{t('sheet_label')}</label>
      {/* Not controlled: a redraw while the choice settles (a message, a count) must not put the sheet read back. */}
      <select
        key={view.sheet}
        id="sheet-choice"
        disabled={readOnly || busy}
        aria-describedby="sheet-choice-hint"
        onChange={(e) => chooseSourceWhenSettled('sheet', e.currentTarget.value, isolate(e.currentTarget.value))}
      >
        {choices.map((s) => (
          <option value={s.name} selected={s.name === view.sheet}>
            {s.state === 'visible' ? isolate(s.name) : t('sheet_hidden', { name: isolate(s.name) })}
          </option>
        ))}
      </select>
      <p id="sheet-choice-hint" class="muted">
        {t('sheet_hint')}
      </p>
    </div>
  );
}
