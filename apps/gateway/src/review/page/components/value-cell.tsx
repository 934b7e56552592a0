/** One cell of a table of rows: the value as text, isolated in its own direction; a bad one says why and can be fixed in place. */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fieldId } from '../field-id';
import { numbers, t, typeName } from '../i18n';
import { fixValues } from '../state';
import type { Cell, CellProblem, Field } from '../types';

/** Values longer than this may be cut in a table cell; they get a tooltip with the whole value. */
const LONG_VALUE = 24;

function reason(problem: CellProblem, field: Field): string {
  if (problem === 'required') return t('problem_required');
  return field.allowed_values ? t('problem_enum') : t('problem_type', { type: typeName(field.data_type) });
}

export function ValueCell({ cell, field, row, fixable }: { cell: Cell | undefined; field: Field; row: number; fixable: boolean }) {
  const [editing, setEditing] = useState(false);
  const fixButton = useRef<HTMLButtonElement>(null);
  // Discarding an edit puts the focus back on the cell's Fix button, once that is drawn again.
  const backToButton = useRef(false);
  useLayoutEffect(() => {
    if (editing || !backToButton.current) return;
    backToButton.current = false;
    fixButton.current?.focus();
  }, [editing]);
  const value = cell?.value;
  const problem = cell?.problem;
  return (
    // A long value is cut at the column's width: the whole of it on hover.
    <td class={problem ? 'bad' : undefined} title={value && value.length > LONG_VALUE ? value : undefined}>
      {editing && cell ? (
        <CellEditor
          cell={cell}
          field={field}
          row={row}
          onDiscard={() => {
            backToButton.current = true;
            setEditing(false);
          }}
        />
      ) : (
        <>
          {/* Isolated: a value keeps its own direction inside a right-to-left page ("+49 30 12342", "Customer No."). */}
          {value ? <bdi>{value}</bdi> : <span class="empty">{t('empty_value')}</span>}
          {/* Written out, not only a tooltip: phones and keyboards have no hover, and screen readers read it with the value. */}
          {problem && <span class="reason">{reason(problem, field)}</span>}
          {problem && fixable && (
            <button
              type="button"
              class="fix-cell"
              ref={fixButton}
              aria-label={t('fix_cell_label', { field: field.label, row: numbers.format(row) })}
              onClick={() => setEditing(true)}
            >
              {t('fix_cell')}
            </button>
          )}
        </>
      )}
    </td>
  );
}

/** A bad cell as a small form: Enter (or Save) records the edit, Escape (or Discard) puts the cell back. */
function CellEditor({ cell, field, row, onDiscard }: { cell: Cell; field: Field; row: number; onDiscard: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const id = `edit-${fieldId(field.name)}-${row}`;
  return (
    <form
      class="cell-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void fixValues(field.name, { kind: 'cell', row, before: cell.value ?? '', after: input.current?.value ?? '' });
      }}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        onDiscard();
      }}
    >
      <label class="sr-only" for={id}>
        {t('fix_cell_input', { field: field.label, row: numbers.format(row) })}
      </label>
      {/* defaultValue, not value: a redraw of the page while the reviewer types must not put the old value back. */}
      <input id={id} type="text" dir="auto" defaultValue={cell.value ?? ''} ref={input} />
      <button type="submit">{t('fix_save')}</button>
      <button type="button" onClick={onDiscard}>
        {t('fix_discard')}
      </button>
    </form>
  );
}
