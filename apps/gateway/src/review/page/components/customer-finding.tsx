/**
 * What the customer's validation hook said of a cell: its message (its own words, isolated in their
 * own direction), the value it suggests, and an Accept button that records that value as a cell fix.
 */
import { numbers, shownText, t } from '../i18n';
import { fixValues } from '../state';
import type { Cell, Field } from '../types';

type Finding = NonNullable<Cell['customer']>;

/** Records the hook's corrected value as the reviewer's cell edit (the fix names the value the hook saw). */
const acceptCorrection = (field: Field, row: number, finding: Finding) =>
  fixValues(field.name, { kind: 'cell', row, before: finding.before, after: finding.corrected_value ?? '' });

export function CustomerFinding({ finding, field, row, fixable }: { finding: Finding; field: Field; row: number; fixable: boolean }) {
  const suggested = finding.corrected_value;
  return (
    <>
      <span class="reason customer-reason">
        <bdi>{shownText(finding.message)}</bdi>
      </span>
      {suggested !== null && (
        <span class="suggestion">
          {t('customer_suggestion')} <bdi>{shownText(suggested)}</bdi>
        </span>
      )}
      {suggested !== null && fixable && (
        // Out of the tab order like the Fix button (the grid has one tab stop); on the keyboard the cell's editor offers it too.
        <button
          type="button"
          class="accept-cell"
          tabIndex={-1}
          aria-label={t('customer_accept_label', { field: field.label, row: numbers.format(row) })}
          onClick={() => void acceptCorrection(field, row, finding)}
        >
          {t('customer_accept')}
        </button>
      )}
    </>
  );
}
