/** One field of the mapping: its name, type and requirement, the column chosen for it, and what to know about that column. */
import { useRef, useState } from 'preact/hooks';
import { fieldId } from '../field-id';
import { cutText, isolate, listOf, t, typeName } from '../i18n';
import type { Field } from '../types';
import { useHasBeenNear } from '../near-viewport';
import { Picklist } from './picklist';

interface Props {
  field: Field;
  headers: string[];
  /** The column chosen ('' for none). */
  column: string;
  /** The labels of the other fields a column feeds. */
  feeds: (column: string) => string[];
  samples: Record<string, string[]>;
  /** Rows with a problem in this field, by the count for the mapping shown (0 while none is done). */
  problems: number;
  readOnly: boolean;
  busy: boolean;
  onChange: (column: string) => void;
}

export function FieldMapping({ field, headers, column, feeds, samples, problems, readOnly, busy, onChange }: Props) {
  const id = fieldId(field.name);
  // Every column is listed once the select has been near the screen or had the focus; before, only the chosen one
  // (near-viewport.ts: a million options made a schema of 1,000 fields unusable).
  const select = useRef<HTMLSelectElement>(null);
  const [focused, setFocused] = useState(false);
  const listed = useHasBeenNear(select) || focused ? headers : column ? [column] : [];
  const shownSamples = column ? samples[column] || [] : [];
  const sharing = column ? feeds(column) : [];
  const unmapped = field.is_required && column === '';
  const countShown = problems > 0 && column !== '';
  // Only what is visible describes the select (hidden nodes would still be read out).
  const describedBy = [
    `${id}-meta`,
    field.description ? `${id}-desc` : null,
    shownSamples.length ? `${id}-samples` : null,
    unmapped ? `${id}-warn` : null,
    sharing.length ? `${id}-shared` : null,
    countShown ? `${id}-count` : null,
  ];
  // Each column says which other fields it already feeds.
  const columnText = (header: string) => {
    const others = feeds(header);
    return others.length ? `${isolate(header)} · ${t('column_used_by', { fields: listOf(others) })}` : isolate(header);
  };
  return (
    <li class={unmapped ? 'field unmapped-required' : 'field'} data-row={field.name}>
      <div>
        <label class="field-name" for={id}>
          {field.label}
        </label>
        <div class="field-meta" id={`${id}-meta`}>
          <span class={field.is_required ? 'badge required' : 'badge'}>{field.is_required ? t('required') : t('optional')}</span>
          <span class="badge">{typeName(field.data_type)}</span>
        </div>
        {field.description && (
          <p class="field-desc" id={`${id}-desc`}>
            {field.description}
          </p>
        )}
      </div>
      <div>
        <select
          id={id}
          data-field={field.name}
          disabled={readOnly || busy}
          aria-required={field.is_required ? 'true' : undefined}
          aria-describedby={describedBy.filter(Boolean).join(' ')}
          aria-invalid={unmapped ? 'true' : 'false'}
          value={column}
          ref={select}
          onFocus={() => setFocused(true)}
          onChange={(e) => onChange(e.currentTarget.value)}
        >
          <option value="">{t('not_mapped')}</option>
          {listed.map((header) => (
            <option value={header}>{columnText(header)}</option>
          ))}
        </select>
        <p class="field-samples muted" id={`${id}-samples`} hidden={!shownSamples.length}>
          {shownSamples.length ? t('column_samples', { values: listOf(shownSamples.map((v) => isolate(cutText(v)))) }) : ''}
        </p>
        <p class="field-warning" id={`${id}-warn`} hidden={!unmapped}>
          {t('required_unmapped')}
        </p>
        <p class="field-warning" id={`${id}-shared`} hidden={!sharing.length}>
          {sharing.length ? t('column_shared', { fields: listOf(sharing) }) : ''}
        </p>
        {field.allowed_values && <Picklist field={field} id={id} editable={!readOnly} busy={busy} />}
        <p class="field-count" id={`${id}-count`} hidden={!countShown}>
          {problems > 0 ? t('field_problems', { count: problems }) : ''}
        </p>
      </div>
    </li>
  );
}
