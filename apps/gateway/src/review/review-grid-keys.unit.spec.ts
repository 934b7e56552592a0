import { nextCell, tabCell, typesCharacter, type CellPosition } from './page/grid-keys';

/** The review page's grid keys (page/grid-keys.ts); the browser tests drive them in Chromium (test/browser/review-grid.browser.spec.ts). */
describe('review grid keys', () => {
  const size = { rows: 3, cols: 5 };
  const at = { row: 1, col: 2 };
  const press = (key: string, ctrl = false, rtl = false, from = at) => nextCell({ key, ctrl }, from, size, rtl);

  it('moves one cell with the arrows, in the visual direction on a right-to-left page', () => {
    expect(press('ArrowRight')).toEqual({ row: 1, col: 3 });
    expect(press('ArrowLeft')).toEqual({ row: 1, col: 1 });
    expect(press('ArrowDown')).toEqual({ row: 2, col: 2 });
    expect(press('ArrowUp')).toEqual({ row: 0, col: 2 });
    // Right to left: the next cell is drawn on the left.
    expect(press('ArrowLeft', false, true)).toEqual({ row: 1, col: 3 });
    expect(press('ArrowRight', false, true)).toEqual({ row: 1, col: 1 });
    expect(press('ArrowDown', false, true)).toEqual({ row: 2, col: 2 });
  });

  it('goes to the row’s ends with Home/End and to the grid’s with Ctrl', () => {
    expect(press('Home')).toEqual({ row: 1, col: 0 });
    expect(press('End')).toEqual({ row: 1, col: 4 });
    expect(press('Home', true)).toEqual({ row: 0, col: 0 });
    expect(press('End', true)).toEqual({ row: 2, col: 4 });
    expect(press('End', false, true)).toEqual({ row: 1, col: 4 });
  });

  it('stays on the edge at the grid’s edge, and answers null for keys that do not move', () => {
    expect(press('ArrowUp', false, false, { row: 0, col: 0 })).toEqual({ row: 0, col: 0 });
    expect(press('ArrowLeft', false, false, { row: 0, col: 0 })).toEqual({ row: 0, col: 0 });
    expect(press('ArrowDown', false, false, { row: 2, col: 4 })).toEqual({ row: 2, col: 4 });
    expect(press('ArrowRight', false, false, { row: 2, col: 4 })).toEqual({ row: 2, col: 4 });
    expect(press('ArrowLeft', false, true, { row: 2, col: 4 })).toEqual({ row: 2, col: 4 });
    for (const key of ['Enter', 'F2', 'a', 'Tab', 'PageDown']) expect(press(key)).toBeNull();
  });

  describe('Tab and Shift+Tab', () => {
    // Cells to fix in a 3×5 grid: (0,3), (1,1), (1,4), (2,2); column 0 is the row's number.
    const bad = new Set(['0,3', '1,1', '1,4', '2,2']);
    const mayFix = (c: CellPosition) => bad.has(`${c.row},${c.col}`);
    const tab = (from: CellPosition, back = false) => tabCell(from, size, mayFix, back);

    it('goes to the next cell to fix in reading order, across rows, skipping the cells without a problem', () => {
      expect(tab({ row: 0, col: 3 })).toEqual({ row: 1, col: 1 });
      expect(tab({ row: 1, col: 1 })).toEqual({ row: 1, col: 4 });
      expect(tab({ row: 1, col: 4 })).toEqual({ row: 2, col: 2 });
      // From a cell without a problem (reached with the arrows), and from a row's number.
      expect(tab({ row: 0, col: 0 })).toEqual({ row: 0, col: 3 });
      expect(tab({ row: 1, col: 2 })).toEqual({ row: 1, col: 4 });
    });

    it('goes back with Shift+Tab', () => {
      expect(tab({ row: 2, col: 2 }, true)).toEqual({ row: 1, col: 4 });
      expect(tab({ row: 1, col: 4 }, true)).toEqual({ row: 1, col: 1 });
      expect(tab({ row: 1, col: 1 }, true)).toEqual({ row: 0, col: 3 });
      expect(tab({ row: 2, col: 4 }, true)).toEqual({ row: 2, col: 2 });
    });

    it('answers null past the last (before the first) cell to fix, so the focus leaves the grid', () => {
      expect(tab({ row: 2, col: 2 })).toBeNull();
      expect(tab({ row: 2, col: 4 })).toBeNull();
      expect(tab({ row: 0, col: 3 }, true)).toBeNull();
      expect(tab({ row: 0, col: 0 }, true)).toBeNull();
      // A grid with nothing to fix (a closed review, a clean file) holds no Tab stop inside.
      expect(tabCell({ row: 1, col: 2 }, size, () => false, false)).toBeNull();
      expect(tabCell({ row: 1, col: 2 }, size, () => false, true)).toBeNull();
    });
  });

  it('tells a typed character from a command or a shortcut', () => {
    const key = (k: string, mods: { ctrl?: boolean; meta?: boolean; alt?: boolean; altGraph?: boolean } = {}) =>
      typesCharacter({
        key: k,
        ctrlKey: !!mods.ctrl,
        metaKey: !!mods.meta,
        getModifierState: (m) => m === 'AltGraph' && !!mods.altGraph,
      });
    for (const k of ['a', 'Z', '4', '-', ' ', 'é', 'ß', 'ع', '€', '😀']) expect({ k, typed: key(k) }).toEqual({ k, typed: true });
    for (const k of ['Enter', 'F2', 'Escape', 'Tab', 'ArrowLeft', 'Dead', 'Process', 'Shift'])
      expect({ k, typed: key(k) }).toEqual({ k, typed: false });
    expect(key('c', { ctrl: true })).toBe(false);
    expect(key('v', { meta: true })).toBe(false);
    // AltGr (Ctrl+Alt on Windows) and Option on a Mac type characters.
    expect(key('@', { ctrl: true, alt: true, altGraph: true })).toBe(true);
    expect(key('€', { alt: true })).toBe(true);
  });
});
