/** The first rows as they will be delivered, the whole-file count of rows with problems, and the fixes in force. */
import { t } from '../i18n';
import type { State } from '../state';
import type { ReviewView } from '../types';
import { CustomerChecksNote } from './customer-checks-note';
import { FixesBar } from './fixes-bar';
import { RowsTable } from './rows-table';

export function PreviewSection({ s, view }: { s: State; view: ReviewView }) {
  const rows = s.preview?.rows;
  const fixable = view.phase === 'active';
  // Approved leaving out the rows that still had a problem: the preview is not what was delivered, and says so.
  // Rows left out are shown among the first rows: the caption does not call them all delivered.
  const caption =
    view.phase === 'approved' && view.problem_rows_choice === 'exclude'
      ? t('preview_caption_excluding')
      : s.preview?.leftOut.length
        ? t('preview_caption_left_out', { count: s.preview.rows.length })
        : null;
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">{t('preview_title')}</h2>
      <FixesBar view={view} undoable={view.phase === 'active'} />
      <p class={s.problems.tone ? `problems notice ${s.problems.tone}` : 'problems'} id="problems" aria-live="polite" tabindex={-1}>
        {s.problems.text}
      </p>
      <CustomerChecksNote checks={s.customerChecks} />
      {/* The caption sits outside the sideways-scrolling box (a <caption> scrolls away with its table), and names the table. */}
      <p id="preview-caption" class="table-caption">
        {rows ? (rows.length ? (caption ?? t('preview_caption', { count: rows.length })) : t('preview_empty')) : ''}
      </p>
      {fixable && (
        <p id="grid-keys" class="grid-keys">
          {t('grid_keys')} {t('grid_keys_rows')}
        </p>
      )}
      <div class="table-wrap" role="region" tabindex={0} aria-label={t('preview_region')}>
        <RowsTable
          key={s.preview?.seq ?? 0}
          drawn={s.preview?.seq ?? 0}
          id="preview"
          labelledBy="preview-caption"
          describedBy={fixable ? 'grid-keys' : undefined}
          fields={view.fields}
          rows={s.preview ? s.preview.rows.map((cells, i) => ({ number: i + 1, cells })) : null}
          numberHeading={t('preview_row')}
          fixable={fixable}
          leftOut={s.preview?.leftOut}
          hidden={view.hidden_rows}
        />
      </div>
    </section>
  );
}
