/** An enum field's picklist: the allowed values, and (while the review is open) a panel mapping each value of the column to one. */
import { useState } from 'preact/hooks';
import { isolate, listOf, numbers, shownText, t } from '../i18n';
import { picklistValues, savePicklist } from '../state';
import type { Field, PicklistValues } from '../types';

/** An allowed value as the reviewer reads it: its label, and the value to write when the label is something else. */
const allowedWords = (a: { value: string; label: string }): string =>
  a.label === a.value ? isolate(a.value) : t('picklist_allowed_value', { label: isolate(a.label), value: isolate(a.value) });

export function Picklist({ field, id, editable, busy }: { field: Field; id: string; editable: boolean; busy: boolean }) {
  const [expanded, setExpanded] = useState(false);
  /** The values read for the mapping shown when the panel was opened; 'loading' until they come, null when the call failed. */
  const [found, setFound] = useState<PicklistValues | 'loading' | null>(null);
  const toggle = async () => {
    setExpanded(!expanded);
    if (expanded) return;
    setFound('loading');
    setFound(await picklistValues(field.name));
  };
  return (
    <div>
      <p class="muted">{t('picklist_allowed', { values: listOf((field.allowed_values ?? []).map(allowedWords)) })}</p>
      {editable && (
        <button
          type="button"
          id={`${id}-map-values`}
          aria-expanded={expanded ? 'true' : 'false'}
          aria-controls={`${id}-picklist`}
          onClick={() => void toggle()}
        >
          {t('picklist_open')}
        </button>
      )}
      <div class="picklist" id={`${id}-picklist`} hidden={!expanded}>
        {found === 'loading' ? (
          <p aria-live="polite">{t('picklist_loading')}</p>
        ) : (
          found && <PicklistPanel field={field} id={id} found={found} busy={busy} />
        )}
      </div>
    </div>
  );
}

function PicklistPanel({ field, id, found, busy }: { field: Field; id: string; found: PicklistValues; busy: boolean }) {
  // What each value maps to: the mapping in force, else the suggestion, else kept as it is ('', as
  // is anything not allowed, which no option would show).
  const [choices, setChoices] = useState<Record<string, string>>(() => {
    const allowed = new Set(found.allowed_values.map((a) => a.value));
    return Object.fromEntries(
      found.values.map(({ value, mapped_to, suggestion }) => {
        const to = mapped_to ?? suggestion ?? '';
        return [value, allowed.has(to) ? to : ''];
      }),
    );
  });
  const titleId = `${id}-picklist-title`;
  return (
    <>
      <h3 id={titleId}>{t('picklist_title', { field: field.label })}</h3>
      {found.more && <p class="muted">{t('picklist_more', { shown: found.values.length, distinct: found.distinct })}</p>}
      <div class="table-wrap" role="region" tabindex={0} aria-labelledby={titleId}>
        <table aria-labelledby={titleId}>
          <thead>
            <tr>
              {['picklist_value', 'picklist_rows', 'picklist_to'].map((key) => (
                <th scope="col">{t(key)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {found.values.map((v, i) => (
              <tr>
                <th scope="row">
                  <label for={`${id}-pick-${i}`}>
                    <bdi>{shownText(v.value)}</bdi>
                  </label>
                </th>
                <td>{numbers.format(v.rows)}</td>
                <td>
                  <select
                    id={`${id}-pick-${i}`}
                    data-value={v.value}
                    disabled={busy}
                    value={choices[v.value]}
                    onChange={(e) => {
                      const to = e.currentTarget.value;
                      setChoices((all) => ({ ...all, [v.value]: to }));
                    }}
                  >
                    <option value="">{t('picklist_keep')}</option>
                    {found.allowed_values.map((a) => (
                      <option value={a.value}>{a.label ?? a.value}</option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" class="primary" id={`${id}-picklist-save`} onClick={() => void savePicklist(field.name, choices)}>
        {t('picklist_save')}
      </button>
    </>
  );
}
