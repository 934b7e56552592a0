/** For a workbook with more than one sheet with data: which sheet the columns and rows are read from. */
import { isolate, t } from '../i18n';
import type { ReviewView } from '../types';
import { SourceChoice } from './source-choice';

export function SheetChoice({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  // Sheets without data have nothing to map; the one read is listed whatever it holds.
  const choices = (view.sheets || []).filter((s) => s.has_data || s.name === view.sheet);
  if (choices.length < 2 || view.sheet === null) return null;
  return (
    <SourceChoice
      path="sheet"
      label={t('sheet_label')}
      hint={readOnly ? null : t('sheet_hint')}
      current={view.sheet}
      options={choices.map((s) => ({
        value: s.name,
        text: s.state === 'visible' ? isolate(s.name) : t('sheet_hidden', { name: isolate(s.name) }),
      }))}
      shown={isolate}
      disabled={readOnly || busy}
    />
  );
}
