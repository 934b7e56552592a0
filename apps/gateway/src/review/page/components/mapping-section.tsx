/**
 * Which column of the file feeds each field; for an uploaded table, whether its first row (or the row under a
 * title left out) holds the column names; for a workbook with several sheets with data, which sheet is read; for a text file,
 * which encoding it is read in.
 */
import { isolate, listOf, t } from '../i18n';
import { changeMapping, chooseHeaderRow, type State } from '../state';
import type { Field, ReviewView } from '../types';
import { FieldMapping } from './field-mapping';
import { HeaderRowPicker } from './header-row-picker';
import { EncodingChoice } from './encoding-choice';
import { SheetChoice } from './sheet-choice';

export function MappingSection({ s, view }: { s: State; view: ReviewView }) {
  const readOnly = view.phase !== 'active';
  // The fields fed by each column.
  const users = new Map<string, Field[]>();
  for (const f of view.fields) {
    const column = s.mapping[f.name];
    if (column) users.set(column, [...(users.get(column) || []), f]);
  }
  return (
    <section aria-labelledby="mapping-title">
      <h2 id="mapping-title">{t('mapping_title')}</h2>
      <p class="muted">{readOnly ? t('mapping_hint_read_only') : t('mapping_hint')}</p>
      <SheetChoice view={view} readOnly={readOnly} busy={s.busy} />
      <EncodingChoice view={view} readOnly={readOnly} busy={s.busy} />
      {view.header_choice && <RowsAboveHeader view={view} readOnly={readOnly} busy={s.busy} />}
      {view.header_choice && (
        <label class="check header-choice">
          {/* Not controlled: the box keeps the reviewer's click while the columns are read again, then the editor is drawn afresh. */}
          <input
            type="checkbox"
            id="first-row-header"
            defaultChecked={view.input_has_header === true}
            disabled={readOnly}
            onChange={(e) => void chooseHeaderRow(e.currentTarget.checked)}
          />
          {view.rows_above_header.length > 0 ? t('header_row_n', { row: view.rows_above_header.length + 1 }) : t('first_row_header')}
        </label>
      )}
      {view.header_choice && !readOnly && <HeaderRowPicker view={view} busy={s.busy} />}
      <div class="column-head" aria-hidden="true">
        <span>{t('mapping_field')}</span>
        <span>{t('mapping_column')}</span>
      </div>
      <ul class="fields">
        {view.fields.map((field) => (
          <FieldMapping
            key={field.name}
            field={field}
            headers={view.source_headers}
            column={s.mapping[field.name] || ''}
            feeds={(column) => (users.get(column) || []).filter((u) => u.name !== field.name).map((u) => u.label)}
            samples={s.columnSamples}
            problems={s.count?.problems_by_field?.[field.name] || 0}
            readOnly={readOnly}
            busy={s.busy}
            onChange={(column) => changeMapping(field.name, column)}
          />
        ))}
      </ul>
    </section>
  );
}

/**
 * The rows above the column names (a title): left out, with the way to take the first row as the names; or, once read
 * as rows, the way to leave them out again. Nothing when the file's read found none.
 */
function RowsAboveHeader({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  const leftOut = view.rows_above_header;
  const rows = leftOut.length > 0 ? leftOut : view.rows_above_header_found;
  if (rows.length === 0) return null;
  const listed = listOf(rows.map((text, i) => t('rows_above_row', { row: i + 1, text: isolate(text) })));
  return (
    <p class="rows-above-header" id="rows-above-header">
      {leftOut.length > 0 ? t('rows_above_left_out', { rows: listed }) : t('rows_above_found', { rows: listed })}{' '}
      {!readOnly && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void (leftOut.length > 0 ? chooseHeaderRow(true, 0) : chooseHeaderRow(true, rows.length))}
        >
          {leftOut.length > 0 ? t('rows_above_take_first') : t('rows_above_leave_out')}
        </button>
      )}
    </p>
  );
}
