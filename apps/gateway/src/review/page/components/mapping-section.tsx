/**
 * Which column of the file feeds each field; for an uploaded table, whether its first row holds the
 * column names; for a workbook with several sheets with data, which sheet is read; for a text file,
 * which encoding it is read in.
 */
import { t } from '../i18n';
import { changeMapping, chooseHeaderRow, type State } from '../state';
import type { Field, ReviewView } from '../types';
import { FieldMapping } from './field-mapping';
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
          {t('first_row_header')}
        </label>
      )}
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
