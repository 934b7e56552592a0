/**
 * Where a key moves the focus in a grid of rows (the WAI-ARIA grid pattern's keys): the arrows one
 * cell, Home/End to the row's first/last cell, Ctrl+Home/End to the first/last cell of the grid;
 * Tab and Shift+Tab to the next or previous cell in reading order, as in a spreadsheet, and out of
 * the grid after its last (before its first) cell.
 * Pure, so the rules read in one place; the table (components/rows-table.tsx) does the focusing.
 */

export interface CellPosition {
  /** The row's index among the grid's rows (its body rows). */
  row: number;
  /** The cell's index in its row (0 is the row's number). */
  col: number;
}

export interface GridSize {
  rows: number;
  cols: number;
}

/** What modifiers a key came with; only Ctrl (or ⌘) changes where a key goes. */
export interface KeyPress {
  key: string;
  ctrl: boolean;
}

const clamp = (n: number, max: number): number => Math.max(0, Math.min(n, max));

/**
 * The cell a key moves to from `at`, or null when the key is not a moving key. On a right-to-left
 * page the arrows follow what is seen: ArrowLeft goes to the next cell (the cells run from the right).
 * At the grid's edge the focus stays where it is (a moving key is still consumed: the page does not scroll).
 */
export function nextCell({ key, ctrl }: KeyPress, at: CellPosition, size: GridSize, rtl: boolean): CellPosition | null {
  const lastRow = size.rows - 1;
  const lastCol = size.cols - 1;
  const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
  const back = rtl ? 'ArrowRight' : 'ArrowLeft';
  switch (key) {
    case forward:
      return { row: at.row, col: clamp(at.col + 1, lastCol) };
    case back:
      return { row: at.row, col: clamp(at.col - 1, lastCol) };
    case 'ArrowDown':
      return { row: clamp(at.row + 1, lastRow), col: at.col };
    case 'ArrowUp':
      return { row: clamp(at.row - 1, lastRow), col: at.col };
    case 'Home':
      return ctrl ? { row: 0, col: 0 } : { row: at.row, col: 0 };
    case 'End':
      return ctrl ? { row: lastRow, col: lastCol } : { row: at.row, col: lastCol };
    default:
      return null;
  }
}

/**
 * The cell Tab (Shift+Tab: `back`) goes to from `at`: the next (previous) cell in reading order, as
 * in a spreadsheet: along the row, then from the row's last cell to the next row's first (its
 * number). On a right-to-left page that is the order it is read in too, from the right, the way the
 * arrows go. Null past the grid's last cell (before its first): the key is then left to the browser,
 * which takes the focus out of the grid, so Tab never traps a keyboard user in a table.
 */
export function tabCell(at: CellPosition, size: GridSize, back: boolean): CellPosition | null {
  const i = at.row * size.cols + at.col + (back ? -1 : 1);
  if (i < 0 || i >= size.rows * size.cols) return null;
  return { row: Math.floor(i / size.cols), col: i % size.cols };
}

/** A key that types a character (a letter, a digit, a sign, a space), as opposed to a command or a shortcut. */
export function typesCharacter(e: { key: string; ctrlKey: boolean; metaKey: boolean; getModifierState(k: string): boolean }): boolean {
  if ([...e.key].length !== 1) return false; // "Enter", "F2", "Dead", "Process" (an input method composing)…
  if (e.metaKey) return false;
  // AltGr (reported as Ctrl+Alt on Windows) types characters such as "@" or "€" on many layouts,
  // and so does Option (Alt) on a Mac; Ctrl alone makes a shortcut.
  if (e.ctrlKey) return e.getModifierState('AltGraph');
  return true;
}
