/**
 * Every row with a problem over the whole file, filtered by field and kind, a page of 20 at a time (paged by the
 * service), and the bulk fixes of the field chosen (any field, problems or not, while the review is open).
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { CELL_PROBLEMS } from '../../../../../../libs/domain/src/fields/cell-problems';
import { numbers, t } from '../i18n';
import { filterProblems, turnProblemPage, type State } from '../state';
import type { ReviewView } from '../types';
import { BulkFixes } from './bulk-fixes';
import { RowsTable } from './rows-table';

export function ProblemRowsSection({ s, view }: { s: State; view: ReviewView }) {
  const { listed, filter, busy } = s;
  const page = s.problemRows.page;
  const active = view.phase === 'active';
  const byField = listed ? listed.problems_by_field : {};
  // The field filter lists the fields that have problems, with their counts, then (while the review is open) every
  // other field with a column: a value can be wrong without breaking a rule ("NY" where "New York" is meant), and its
  // bulk fixes are then in reach. The chosen field stays listed when a fix leaves it with none, so its fixes (and their
  // undo) stay in reach. Own keys only: a field may be named "constructor" or "toString", which every object inherits.
  const countOf = (name: string): number => (Object.prototype.hasOwnProperty.call(byField, name) ? byField[name] : 0);
  const anyProblems = !!listed && listed.rows_with_problems > 0;
  const withProblems = anyProblems ? view.fields.filter((f) => countOf(f.name) > 0) : [];
  const listedAbove = new Set(withProblems.map((f) => f.name));
  // A field without a column has only blanks: a fix there would change nothing.
  const withoutProblems = active
    ? view.fields.filter((f) => !listedAbove.has(f.name) && (!!s.mapping[f.name] || f.name === filter.field))
    : [];
  const others = withoutProblems.map((f) => <option value={f.name}>{f.label}</option>);
  // "No row has a problem" only once the count (and the customer's checks) for the mapping shown are in.
  const settled = !!s.count && s.count.customer_checks?.status !== 'running';
  // The last row with a problem fixed from its grid: the grid goes, and the keyboard to the section's new heading.
  const heading = useRef<HTMLHeadingElement>(null);
  const hadProblems = useRef(anyProblems);
  useLayoutEffect(() => {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (hadProblems.current && !anyProblems && lost) heading.current?.focus();
    hadProblems.current = anyProblems;
  }, [anyProblems]);
  return (
    <section
      id="problem-rows-section"
      aria-labelledby="problem-rows-title"
      hidden={!listed || (!anyProblems && (!active || listed.rows_checked === 0))}
    >
      <h2 id="problem-rows-title" ref={heading} tabIndex={-1}>
        {t(anyProblems ? 'problem_rows_title' : 'fix_column_title')}
      </h2>
      {!anyProblems && settled && <p class="muted">{t('fix_column_intro')}</p>}
      <div class="filters">
        <label for="problem-field">{t('problem_rows_field')}</label>
        <select
          id="problem-field"
          disabled={busy}
          value={filter.field || ''}
          onChange={(e) => filterProblems('field', e.currentTarget.value)}
        >
          <option value="">{t(anyProblems ? 'problem_rows_any_field' : 'fix_column_choose')}</option>
          {withProblems.map((f) => (
            <option value={f.name}>{`${f.label} (${numbers.format(countOf(f.name))})`}</option>
          ))}
          {/* Under a heading of their own only beside fields with problems: alone, they are simply the fields. */}
          {anyProblems ? others.length > 0 && <optgroup label={t('problem_rows_other_fields')}>{others}</optgroup> : others}
        </select>
        {anyProblems && (
          <>
            <label for="problem-kind">{t('problem_rows_kind')}</label>
            <select
              id="problem-kind"
              disabled={busy}
              value={filter.kind || ''}
              onChange={(e) => filterProblems('kind', e.currentTarget.value)}
            >
              <option value="">{t('problem_rows_any_kind')}</option>
              {CELL_PROBLEMS.map((kind) => (
                <option value={kind}>{t(`problem_kind_${kind}`)}</option>
              ))}
            </select>
          </>
        )}
      </div>
      {active && (
        <div id="bulk-fixes" class="bulk-fixes">
          {/* Drawn afresh for another field only: a recount must not take away the control that has focus. */}
          <BulkFixes key={filter.field ?? ''} field={view.fields.find((f) => f.name === filter.field)} busy={busy} />
        </div>
      )}
      {anyProblems && (
        <>
          <p id="problem-rows-status" aria-live="polite">
            {s.problemRows.status}
          </p>
          <div class="table-wrap" role="region" tabindex={0} aria-label={t('problem_rows_region')}>
            <RowsTable
              key={page?.seq ?? 0}
              drawn={page?.seq ?? 0}
              id="problem-rows"
              labelledBy="problem-rows-title"
              describedBy={view.phase === 'active' ? 'grid-keys' : undefined}
              fields={view.fields}
              rows={page ? page.rows : null}
              numberHeading={t('problem_rows_row')}
              fixable={view.phase === 'active'}
              hidden={view.hidden_rows}
            />
          </div>
          {/* Only for a list of more than one page. aria-disabled, not disabled: the button that reached an end keeps the keyboard. */}
          {page && (page.pages > 1 || page.pending) && (
            <div class="pager">
              <button type="button" id="problem-first" aria-disabled={page?.first || undefined} onClick={() => turnProblemPage('first')}>
                {t('problem_rows_first')}
              </button>
              <button type="button" id="problem-prev" aria-disabled={page?.first || undefined} onClick={() => turnProblemPage(-1)}>
                {t('problem_rows_prev')}
              </button>
              <button type="button" id="problem-next" aria-disabled={page?.last || undefined} onClick={() => turnProblemPage(1)}>
                {t('problem_rows_next')}
              </button>
              <button type="button" id="problem-last" aria-disabled={page?.last || undefined} onClick={() => turnProblemPage('last')}>
                {t('problem_rows_last')}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
