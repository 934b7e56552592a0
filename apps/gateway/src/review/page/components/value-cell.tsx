/**
 * One cell of a table of rows: the value as text, isolated in its own direction; a bad one says why
 * and can be fixed in place. Which cell has the keyboard and which one is being edited is the
 * table's to say (rows-table.tsx: a grid, one editor at a time).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { fieldId } from '../field-id';
import { numbers, shownText, t } from '../i18n';
import { problemWords } from '../problem-words';
import { fixCell } from '../state';
import type { Cell, Field } from '../types';
import { CustomerFinding } from './customer-finding';

/** Values longer than this may be cut in a table cell; they get a tooltip with the whole value. */
const LONG_VALUE = 24;

/** An editor being opened: the text it starts with, and whether that text is selected (the Fix button) or the caret is at its end. */
export interface EditStart {
  text: string;
  selectAll: boolean;
  /** Why the text was refused, said from the start (an editor opened again after another reviewer's change). */
  refusal?: string;
}

interface Props {
  /** The id of the table the cell is in. */
  table: string;
  cell: Cell | undefined;
  field: Field;
  row: number;
  /** Its value may be fixed here: it has a problem and the review is open. */
  fixable: boolean;
  /** The grid's one tab stop. */
  active: boolean;
  /** Open in its editor, started so. */
  editing: EditStart | null;
  onEdit: (start: EditStart) => void;
  onDiscard: () => void;
  /** Tab (Shift+Tab: `back`) in the editor: `save` records the new value (null when it is unchanged); the table moves on. */
  onTab: (back: boolean, save: (() => Promise<boolean>) | null) => void;
}

export function ValueCell({ table, cell, field, row, fixable, active, editing, onEdit, onDiscard, onTab }: Props) {
  const value = cell?.value;
  const problem = cell?.problem;
  return (
    // A long value is cut at the column's width: the whole of it on hover (of a value shortened for the page, its start).
    <td
      class={problem ? 'bad' : undefined}
      title={value && value.length > LONG_VALUE ? (cell?.shortened ? `${value}…` : value) : undefined}
      tabIndex={active ? 0 : -1}
      aria-invalid={problem ? 'true' : undefined}
    >
      {editing && cell ? (
        <CellEditor table={table} cell={cell} field={field} row={row} start={editing} onDiscard={onDiscard} onTab={onTab} />
      ) : (
        <>
          {/* Isolated: a value keeps its own direction inside a right-to-left page ("+49 30 12342", "Customer No."). */}
          {value ? <bdi>{shownText(value)}</bdi> : <span class="empty">{t('empty_value')}</span>}
          {/* Longer than the page is sent (2,000 characters): an ellipsis, and in words, read with the value. */}
          {cell?.shortened && (
            <span class="shortened">
              <span aria-hidden="true">…</span> {t('value_shortened')}
            </span>
          )}
          {/* Written out, not only a tooltip: phones and keyboards have no hover, and screen readers read it with the value. */}
          {problem && !(problem === 'customer' && cell?.customer) && (
            <span class="reason">{problemWords(problem, field, value ?? null)}</span>
          )}
          {cell?.customer && <CustomerFinding finding={cell.customer} field={field} row={row} fixable={fixable} />}
          {problem && fixable && (
            // Out of the tab order (the grid has one tab stop): on the keyboard, Enter or F2 on the cell opens the same editor.
            <button
              type="button"
              class="fix-cell"
              tabIndex={-1}
              aria-label={t('fix_cell_label', { field: field.label, row: numbers.format(row) })}
              onClick={() => onEdit({ text: value ?? '', selectAll: true })}
            >
              {t('fix_cell')}
            </button>
          )}
        </>
      )}
    </td>
  );
}

/**
 * A bad cell as a small form: Enter (or Save) records the edit, Tab and Shift+Tab in its text box
 * record it and move to the next or previous cell (as in a spreadsheet), Escape (or Discard) puts the
 * cell back. With the customer's suggestion, the Down arrow puts it in the text box (the keyboard's
 * Accept: Tab no longer walks to the buttons). A value the service refuses stays in the text box,
 * which keeps the keyboard, is marked invalid and is described by why (until a save goes through or
 * the editor is closed).
 */
function CellEditor({
  table,
  cell,
  field,
  row,
  start,
  onDiscard,
  onTab,
}: {
  table: string;
  cell: Cell;
  field: Field;
  row: number;
  start: EditStart;
  onDiscard: () => void;
  onTab: Props['onTab'];
}) {
  const input = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [refusal, setRefusal] = useState<string | null>(start.refusal ?? null);
  // A value with a line break is edited in a text area: a text box drops line breaks, so "unchanged" would
  // have saved the value glued together. Enter still saves there; Shift+Enter or Alt+Enter starts a line.
  const multiline = /[\r\n]/.test(start.text) || /[\r\n]/.test(cell.value ?? '');
  // A text area gives its value with \n for every line break: the cell's \r\n is no change.
  const asEdited = multiline ? (cell.value ?? '').replace(/\r\n?/g, '\n') : (cell.value ?? '');
  const unchanged = (value: string) => value === asEdited;
  useLayoutEffect(() => {
    const box = input.current;
    if (!box) return;
    box.focus();
    if (start.selectAll) box.select();
    else box.setSelectionRange(box.value.length, box.value.length);
  }, []);
  const id = `edit-${fieldId(field.name)}-${row}`;
  const finding = cell.customer;
  const suggested = finding ? finding.corrected_value : null;
  const errorId = `${id}-error`;
  // Resolves true once saved. The value the fixes see: what the customer's hook was sent when it named the cell, else the value shown.
  // A text area gives \n for each line break: a value written with \r\n keeps them as the file wrote them.
  const asWritten = (text: string) => (multiline && (cell.value ?? '').includes('\r\n') ? text.replace(/\r?\n/g, '\r\n') : text);
  // `after`: a value given (the customer's suggestion, accepted); else what the text box holds.
  const save = async (after?: string): Promise<boolean> => {
    const value = after ?? asWritten(input.current?.value ?? '');
    const refused = await fixCell(table, field, row, cell.customer?.before ?? cell.value ?? '', value);
    // Said here, at the value: the page's message may be out of sight (a phone). The text box takes
    // the keyboard back (from Save or Accept) so the value can be corrected at once. A save that goes
    // through clears it (an editor of the rows with problems stays open until that list is read again).
    setRefusal(refused);
    if (refused !== null) {
      input.current?.focus();
      // The reason is under the text box: brought into sight, above the actions bar on a phone.
      requestAnimationFrame(() => document.getElementById(errorId)?.scrollIntoView({ block: 'nearest' }));
    }
    return refused === null;
  };
  return (
    <form
      class="cell-edit"
      onSubmit={(e) => {
        e.preventDefault();
        // As Tab: a value left as it was is not recorded, and the editor closes.
        if (unchanged(input.current?.value ?? '')) onDiscard();
        else void save();
      }}
      onKeyDown={(e) => {
        const box = input.current;
        if (e.key === 'Escape') {
          e.preventDefault();
          onDiscard();
        } else if (!box || e.target !== box) {
          return; // Tab and the arrows on the buttons are the browser's.
        } else if (e.key === 'Tab' && !e.altKey && !e.ctrlKey && !e.metaKey) {
          // As in a spreadsheet: the value is kept and the next cell is taken. An unchanged value is
          // not recorded (a fix that changes nothing would only crowd "Fixes in force").
          e.preventDefault();
          onTab(e.shiftKey, unchanged(box.value) ? null : save);
        } else if (e.isComposing) {
          return; // An input method's keys (Enter ends its composition) are its own.
        } else if (multiline && e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          e.currentTarget.requestSubmit();
        } else if (multiline && e.key === 'Enter' && e.altKey) {
          // Alt+Enter starts a line, as in a spreadsheet (a text area does so by itself for Shift+Enter).
          e.preventDefault();
          box.setRangeText('\n', box.selectionStart, box.selectionEnd, 'end');
        } else if (
          e.key === 'ArrowDown' &&
          suggested !== null &&
          !e.altKey &&
          !(multiline && box.value.slice(box.selectionEnd).includes('\n'))
        ) {
          // In a text area, ArrowDown moves down a line; only on its last line does it take the suggestion.
          e.preventDefault();
          box.value = suggested;
          box.setSelectionRange(suggested.length, suggested.length);
        }
      }}
    >
      <label class="sr-only" for={id}>
        {t('fix_cell_input', { field: field.label, row: numbers.format(row) })}
      </label>
      {/* defaultValue, not value: a redraw of the page while the reviewer types must not put the old value back. */}
      {multiline ? (
        <textarea
          id={id}
          dir="auto"
          rows={Math.min(6, (start.text.match(/\n/g)?.length ?? 0) + 1)}
          defaultValue={start.text}
          ref={input}
          aria-invalid={refusal !== null ? 'true' : undefined}
          aria-describedby={[refusal !== null && errorId, suggested !== null && `${id}-suggestion`].filter(Boolean).join(' ') || undefined}
        />
      ) : (
        <input
          id={id}
          type="text"
          dir="auto"
          defaultValue={start.text}
          ref={input}
          aria-invalid={refusal !== null ? 'true' : undefined}
          aria-describedby={[refusal !== null && errorId, suggested !== null && `${id}-suggestion`].filter(Boolean).join(' ') || undefined}
        />
      )}
      {refusal !== null && (
        <span class="cell-error" id={errorId}>
          {t('fix_failed', { message: refusal })}
        </span>
      )}
      {suggested !== null && (
        <span class="suggestion" id={`${id}-suggestion`}>
          {t('customer_suggestion')} <bdi>{shownText(suggested)}</bdi> {t('customer_suggestion_key')}
        </span>
      )}
      <button type="submit">{t('fix_save')}</button>
      {finding && finding.corrected_value !== null && (
        // The same fix as Accept beside the cell (customer-finding.tsx), saved as the editor saves: a refusal is said here.
        <button type="button" onClick={() => void save(finding.corrected_value ?? '')}>
          {t('customer_accept')}
        </button>
      )}
      <button type="button" onClick={onDiscard}>
        {t('fix_discard')}
      </button>
    </form>
  );
}
