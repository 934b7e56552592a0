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
    // A 3×5 grid: column 0 is the row's number, 1 to 4 its fields.
    const tab = (from: CellPosition, back = false) => tabCell(from, size, back);

    it('goes to the adjacent cell in reading order, every cell a stop, and from a row’s last cell to the next row’s number', () => {
      expect(tab({ row: 0, col: 0 })).toEqual({ row: 0, col: 1 });
      expect(tab({ row: 1, col: 2 })).toEqual({ row: 1, col: 3 });
      expect(tab({ row: 1, col: 3 })).toEqual({ row: 1, col: 4 });
      expect(tab({ row: 1, col: 4 })).toEqual({ row: 2, col: 0 });
      expect(tab({ row: 0, col: 4 })).toEqual({ row: 1, col: 0 });
    });

    it('goes back one cell with Shift+Tab, from a row’s number to the previous row’s last cell', () => {
      expect(tab({ row: 1, col: 2 }, true)).toEqual({ row: 1, col: 1 });
      expect(tab({ row: 1, col: 1 }, true)).toEqual({ row: 1, col: 0 });
      expect(tab({ row: 2, col: 0 }, true)).toEqual({ row: 1, col: 4 });
      expect(tab({ row: 0, col: 1 }, true)).toEqual({ row: 0, col: 0 });
    });

    it('answers null past the grid’s last cell (before its first), so the focus leaves the grid', () => {
      expect(tab({ row: 2, col: 4 })).toBeNull();
      expect(tab({ row: 0, col: 0 }, true)).toBeNull();
      // One row of one cell: both keys leave at once.
      expect(tabCell({ row: 0, col: 0 }, { rows: 1, cols: 1 }, false)).toBeNull();
      expect(tabCell({ row: 0, col: 0 }, { rows: 1, cols: 1 }, true)).toBeNull();
    });

    it('visits every cell once, forwards and backwards', () => {
      const seen: string[] = [];
      for (let c: CellPosition | null = { row: 0, col: 0 }; c; c = tab(c)) seen.push(`${c.row},${c.col}`);
      expect(seen).toHaveLength(15);
      expect(new Set(seen).size).toBe(15);
      const back: string[] = [];
      for (let c: CellPosition | null = { row: 2, col: 4 }; c; c = tab(c, true)) back.push(`${c.row},${c.col}`);
      expect(back).toEqual([...seen].reverse());
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
