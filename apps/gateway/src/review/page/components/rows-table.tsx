/**
 * A table of rows as a grid that edits like a spreadsheet (the WAI-ARIA grid pattern): each row's
 * number first, then every field, each bad cell with its reason written out. The grid is one tab
 * stop from outside (a roving tabindex); the arrow keys, Home/End and Ctrl+Home/End move between its
 * cells, and so do Tab and Shift+Tab (one cell in reading order, then out of the grid past its last
 * or before its first cell; grid-keys.ts) while the review is open; on a cell that may be fixed,
 * Enter, F2, a double click or typing a character opens its editor (typing starts it with that
 * character), Escape in the editor puts the cell back and the focus on it, Tab and Shift+Tab in it
 * save the value and move to the next or previous cell.
 *
 * While the review is open, each row's number has a button that leaves the row out of the records (or
 * puts a row left out back); Enter on the row's number does the same (the button is out of the tab
 * order, as the Fix buttons are: the grid has one tab stop). A row left out stays shown, greyed and
 * struck through, and says so in words beside its number; its values are not fixed any more. A row the workbook hides
 * (Excel does not show it) that is still delivered says "Hidden in the workbook" under its number, in words and with
 * an icon and a band beside its number (not colour alone; at a phone's width the icon and the band, the words in the
 * row header's name only); left out, it says "Left out" as any row left out does.
 *
 * Keyed by the answer it shows, so a new answer draws it afresh (and closes any open editor, whose
 * row may have changed). Where the keyboard was is remembered across those redraws: the new table
 * keeps that cell as its tab stop, and takes the focus back when the old one had it (after a save
 * from the editor, the focus lands on the same row and field, or the same place when the row left).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { nextCell, tabCell, typesCharacter, type CellPosition } from '../grid-keys';
import { cutText, isolate, numbers, t } from '../i18n';
import { dropKeptEdit, leaveOutRow, takeKeptEdit, type NumberedRow } from '../state';
import type { Field } from '../types';
import { ValueCell, type EditStart } from './value-cell';

interface Props {
  /** The table's id; its keyboard position is remembered under it across redraws. */
  id: string;
  /** Which asking for the rows they are the answer to (a later one draws the table afresh). */
  drawn: number;
  labelledBy: string;
  /** What says how the grid is used by keyboard (present only where cells may be fixed). */
  describedBy?: string;
  fields: Field[];
  /** Null until the first answer: the table stays empty. */
  rows: NumberedRow[] | null;
  numberHeading: string;
  /** Bad cells can be fixed in place, and rows left out or put back (the review is open). */
  fixable: boolean;
  /** The numbers of the rows shown that are left out of the records. */
  leftOut?: readonly number[];
  /** The numbers of the rows the workbook hides (the review state's `hidden_rows`): marked while they are delivered. */
  hidden?: readonly number[];
}

interface Remembered {
  /** The row's number in the file, and where it was (when that row is not shown any more). */
  rowNumber: number;
  at: CellPosition;
  /** The old table had the focus when it was drawn afresh: the cell it was on, or, from an editor the Fix button opened, the count (as before the grid). */
  refocus: 'cell' | 'count' | null;
}
const remembered = new Map<string, Remembered>();

interface Editing extends CellPosition {
  start: EditStart;
  opener: 'cell' | 'button';
}

export function RowsTable({ id, drawn, labelledBy, describedBy, fields, rows, numberHeading, fixable, leftOut = [], hidden = [] }: Props) {
  const table = useRef<HTMLTableElement>(null);
  const shown = rows ?? [];
  const size = { rows: shown.length, cols: fields.length + 1 };
  const cellOf = (at: CellPosition) => (at.col > 0 ? shown[at.row]?.cells[fields[at.col - 1].name] : undefined);
  const isLeftOut = (r: number) => !!shown[r] && leftOut.includes(shown[r].number);
  // A row left out is not delivered: its values are not fixed any more (its problems are no longer problems). A value
  // shortened for the page is not edited in place: the editor would hold its start only (find and replace still fixes it).
  const mayFix = (at: CellPosition) => fixable && !isLeftOut(at.row) && !!cellOf(at)?.problem && !cellOf(at)?.shortened;

  // A cell's value refused because another reviewer changed it meanwhile opens again with what was typed, where it is still bad.
  const [kept] = useState(() => keptEditOf(id, drawn, shown, fields, mayFix));
  const [active, setActive] = useState<CellPosition>(() => kept ?? startingCell(remembered.get(id), shown, size, mayFix));
  const [editing, setEditing] = useState<Editing | null>(kept);
  // What the unmount and the discard need to know, read after the render that set them.
  const editingNow = useRef(editing);
  editingNow.current = editing;
  const focusAfterDiscard = useRef<CellPosition | null>(null);
  // An editor left by Tab whose value is being saved: the redraw after the save puts the keyboard on the next cell.
  const leavingByTab = useRef(false);

  const cellAt = (at: CellPosition) => table.current?.tBodies[0]?.rows[at.row]?.cells[at.col] ?? null;

  useLayoutEffect(() => {
    const memory = remembered.get(id);
    const focusLost = !document.activeElement || document.activeElement === document.body;
    if (memory?.refocus && focusLost) {
      const cell = memory.refocus === 'cell' ? cellAt(active) : null;
      if (cell) focusCell(cell);
      // Nothing to come back to: the count says what follows (as after a fix whose Fix button is gone).
      else document.getElementById('problems')?.focus();
    }
    if (memory) memory.refocus = null;
    return () => {
      const mine = remembered.get(id);
      if (mine && table.current?.contains(document.activeElement))
        mine.refocus = editingNow.current?.opener === 'button' && !leavingByTab.current ? 'count' : 'cell';
    };
  }, []);

  useLayoutEffect(() => {
    if (editing || !focusAfterDiscard.current) return;
    const cell = cellAt(focusAfterDiscard.current);
    focusAfterDiscard.current = null;
    if (cell) focusCell(cell);
  }, [editing]);

  const positionOf = (cell: HTMLTableCellElement): CellPosition => ({
    row: (cell.parentElement as HTMLTableRowElement).sectionRowIndex,
    col: cell.cellIndex,
  });
  const bodyCellOf = (target: EventTarget | null): HTMLTableCellElement | null => {
    const cell = (target as Element | null)?.closest?.('td, th');
    return cell && cell.parentElement?.parentElement === table.current?.tBodies[0] ? (cell as HTMLTableCellElement) : null;
  };

  const openEditor = (at: CellPosition, start: EditStart, opener: Editing['opener']) => {
    dropKeptEdit();
    setEditing({ ...at, start, opener });
  };
  const discard = () => {
    dropKeptEdit();
    focusAfterDiscard.current = editing && { row: editing.row, col: editing.col };
    setEditing(null);
  };
  const remember = (at: CellPosition) => {
    const row = shown[at.row];
    if (row) remembered.set(id, { rowNumber: row.number, at, refocus: null });
  };
  // Tab in the editor: past the grid's last cell (before its first) the keyboard stays on the cell, as after Enter.
  const tabFromEditor = (back: boolean, save: (() => Promise<boolean>) | null) => {
    if (!editing) return;
    const from = { row: editing.row, col: editing.col };
    const to = tabCell(from, size, back) ?? from;
    if (!save) {
      focusAfterDiscard.current = to;
      setEditing(null);
      return;
    }
    // The save draws the table afresh before it answers: where to go is said first, taken back if it is refused.
    remember(to);
    leavingByTab.current = true;
    void save().then((saved) => {
      if (saved) return;
      leavingByTab.current = false;
      remember(from);
    });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    // The editor's own keys (typing, Enter saves, Escape, Tab to its buttons) are its own.
    if (target.closest('.cell-edit')) return;
    const cell = bodyCellOf(target);
    if (!cell) return;
    const at = positionOf(cell);
    // A closed review's grid is for reading: there Tab leaves it at once (one tab stop, the grid pattern's own rule).
    if (e.key === 'Tab' && fixable && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const to = tabCell(at, size, e.shiftKey);
      const next = to && cellAt(to);
      // Past the last cell (before the first): the browser's own Tab leaves the grid (every other cell is tabindex -1).
      if (!next) return;
      e.preventDefault();
      focusCell(next);
      return;
    }
    // Alt+arrows go back and forward in the browser's history; Shift is not a selection here.
    const to = e.altKey ? null : nextCell({ key: e.key, ctrl: e.ctrlKey || e.metaKey }, at, size, isRtl(table.current));
    if (to) {
      e.preventDefault();
      const next = cellAt(to);
      if (next) focusCell(next);
      return;
    }
    // Enter on a row's number leaves the row out, or puts it back (its button's action, as Enter on a bad cell is its Fix button's).
    if (target === cell && at.col === 0 && fixable && e.key === 'Enter' && shown[at.row]) {
      e.preventDefault();
      void leaveOutRow(shown[at.row].number, isLeftOut(at.row));
      return;
    }
    // Enter on the Fix button is the button's; the gestures below are the cell's.
    if (target !== cell || !mayFix(at)) return;
    if (e.key === 'Enter' || e.key === 'F2') {
      e.preventDefault();
      openEditor(at, { text: cellOf(at)?.value ?? '', selectAll: false }, 'cell');
    } else if (typesCharacter(e)) {
      // The character starts the new value (as in a spreadsheet); it is not typed a second time.
      e.preventDefault();
      openEditor(at, { text: e.key, selectAll: false }, 'cell');
    }
  };

  const onDblClick = (e: MouseEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest('.cell-edit, button')) return;
    const cell = bodyCellOf(target);
    if (!cell) return;
    const at = positionOf(cell);
    if (!mayFix(at)) return;
    // A double click also selects a word of the text: that selection means nothing once the editor is open.
    window.getSelection()?.removeAllRanges();
    openEditor(at, { text: cellOf(at)?.value ?? '', selectAll: false }, 'cell');
  };

  // Whatever has the focus inside (a cell, its Fix button, its editor) makes its cell the tab stop.
  const onFocusIn = (e: FocusEvent) => {
    const cell = bodyCellOf(e.target);
    if (!cell) return;
    const at = positionOf(cell);
    remember(at);
    if (at.row !== active.row || at.col !== active.col) setActive(at);
  };

  const grid = shown.length > 0;
  return (
    <table
      id={id}
      aria-labelledby={labelledBy}
      // A grid only with rows in it (a grid of no cells has nothing to move to); read-only once the review is closed.
      role={grid ? 'grid' : undefined}
      aria-describedby={grid ? describedBy : undefined}
      aria-readonly={grid && !fixable ? 'true' : undefined}
      ref={table}
    >
      {rows && (
        <>
          <thead>
            <tr>
              <th scope="col">{numberHeading}</th>
              {fields.map((f) => (
                <th scope="col" title={f.label}>
                  {f.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody onKeyDown={onKeyDown} onDblClick={onDblClick} onFocusIn={onFocusIn}>
            {shown.map((row, r) => {
              const out = isLeftOut(r);
              // Hidden in the workbook yet delivered: said, as the notice above says it; a row left out is not delivered.
              const hiddenIn = !out && hidden.includes(row.number);
              return (
                <tr class={out ? 'left-out' : hiddenIn ? 'hidden-in-book' : undefined}>
                  <th scope="row" tabIndex={active.row === r && active.col === 0 ? 0 : -1}>
                    {numbers.format(row.number)}
                    {fixable && <RowButton row={row.number} out={out} />}
                    {/* In words, not only greyed and struck through. */}
                    {out && <span class="left-out-tag">{t('row_left_out_tag')}</span>}
                    {hiddenIn && <HiddenTag />}
                  </th>
                  {fields.map((f, i) => {
                    const at = { row: r, col: i + 1 };
                    const open = editing && editing.row === r && editing.col === at.col ? editing : null;
                    const cell = row.cells[f.name];
                    return (
                      <ValueCell
                        table={id}
                        // A row left out has no problems any more: its values are shown as they read, no reasons.
                        cell={out && cell ? { value: cell.value, problem: null, shortened: cell.shortened } : cell}
                        field={f}
                        row={row.number}
                        fixable={mayFix(at)}
                        active={active.row === r && active.col === at.col}
                        editing={open && open.start}
                        onEdit={(start) => openEditor(at, start, 'button')}
                        onDiscard={discard}
                        onTab={tabFromEditor}
                      />
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </>
      )}
    </table>
  );
}

/**
 * The button beside a row's number: leaves the row out of the records, or puts a row left out back. An icon, named
 * with the row's number (a screen reader says which row); out of the tab order, since Enter on the row's number does
 * the same (the grid has one tab stop); its name is the row header's too, so it is heard on the row's number.
 */
function RowButton({ row, out }: { row: number; out: boolean }) {
  const name = t(out ? 'row_put_back_label' : 'row_leave_out_label', { row: numbers.format(row) });
  return (
    <button type="button" class="row-action" tabIndex={-1} aria-label={name} title={name} onClick={() => void leaveOutRow(row, out)}>
      <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
        {out ? (
          // An arrow turning back: the row comes back.
          <path d="M5.5 3.5 2.5 6.5l3 3M2.5 6.5h7a4 4 0 0 1 0 8H7" fill="none" stroke="currentColor" stroke-width="1.75" />
        ) : (
          // A circle struck through: the row is not delivered.
          <>
            <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" stroke-width="1.75" />
            <path d="M4.5 8h7" stroke="currentColor" stroke-width="1.75" />
          </>
        )}
      </svg>
    </button>
  );
}

/**
 * "Hidden in the workbook" under a row's number: words (part of the row header's name), an eye struck through beside
 * them. At a phone's width the words are not drawn (review.css), so the row numbers' column stays as narrow as its
 * number and button: the eye and the band say it on screen, the words stay in the row header's name.
 */
function HiddenTag() {
  return (
    <span class="hidden-tag">
      <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
        <path d="M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8s-2.4 4.5-6.5 4.5S1.5 8 1.5 8Z" fill="none" stroke="currentColor" stroke-width="1.5" />
        <circle cx="8" cy="8" r="2" fill="none" stroke="currentColor" stroke-width="1.5" />
        <path d="M2.5 13.5l11-11" stroke="currentColor" stroke-width="1.5" />
      </svg>
      <span class="hidden-tag-words">{t('row_hidden_tag')}</span>
    </span>
  );
}

/**
 * The editor to open again as the table is drawn from rows asked for as `drawn`: a value of this table
 * refused because another reviewer changed the values meanwhile (state.ts, takeKeptEdit), where its cell
 * is among the rows and still bad, and the keyboard is still in the table (or nowhere): a reviewer who
 * went on elsewhere keeps the keyboard there, and the page's message quotes what was typed.
 */
function keptEditOf(
  table: string,
  drawn: number,
  rows: NumberedRow[],
  fields: Field[],
  mayFix: (at: CellPosition) => boolean,
): Editing | null {
  const kept = takeKeptEdit(table, drawn);
  if (!kept) return null;
  const focus = document.activeElement;
  if (focus && focus !== document.body && !focus.closest(`#${table}`)) return null;
  const at = { row: rows.findIndex((r) => r.number === kept.row), col: fields.findIndex((f) => f.name === kept.field) + 1 };
  if (at.row < 0 || at.col < 1 || !mayFix(at)) return null;
  const cell = rows[at.row].cells[kept.field];
  // The editor covers the value the other reviewer left: the reason says what it is.
  const refusal = t('cell_reads_now', { message: kept.refusal, value: isolate(cutText(cell?.customer?.before ?? cell?.value ?? '')) });
  return { ...at, start: { text: kept.text, selectAll: false, refusal }, opener: 'cell' };
}

/** Where the grid's tab stop starts: where the reviewer was before this redraw, else the first cell to fix, else the first value. */
function startingCell(
  memory: Remembered | undefined,
  rows: NumberedRow[],
  size: { rows: number; cols: number },
  mayFix: (at: CellPosition) => boolean,
): CellPosition {
  const lastRow = Math.max(0, size.rows - 1);
  const lastCol = size.cols - 1;
  if (memory) {
    const same = rows.findIndex((r) => r.number === memory.rowNumber);
    return { row: same >= 0 ? same : Math.min(memory.at.row, lastRow), col: Math.min(memory.at.col, lastCol) };
  }
  for (let row = 0; row < size.rows; row++) for (let col = 1; col < size.cols; col++) if (mayFix({ row, col })) return { row, col };
  return { row: 0, col: Math.min(1, lastCol) };
}

const isRtl = (el: Element | null): boolean => !!el && getComputedStyle(el).direction === 'rtl';

/** Focuses a cell and keeps it out from under the row number, which stays in sight while the rows scroll sideways. */
function focusCell(cell: HTMLTableCellElement): void {
  cell.focus();
  const rowHeader = cell.parentElement?.firstElementChild;
  const wrap = cell.closest('.table-wrap');
  if (!rowHeader || rowHeader === cell || !wrap) return;
  const c = cell.getBoundingClientRect();
  const h = rowHeader.getBoundingClientRect();
  if (isRtl(cell)) {
    if (c.right > h.left) wrap.scrollBy({ left: c.right - h.left });
  } else if (c.left < h.right) {
    wrap.scrollBy({ left: c.left - h.right });
  }
}
