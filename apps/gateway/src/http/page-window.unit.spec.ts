import { GAP, pageWindow } from './page-window';

const shown = (pages: Array<number | null>) => pages.map((p) => (p === GAP ? '...' : String(p))).join(' ');

describe("pageWindow (Laravel's UrlWindow, 3 on each side)", () => {
  it('lists every page of a list of fewer than 14 pages', () => {
    expect(shown(pageWindow(1, 1))).toBe('1');
    expect(shown(pageWindow(7, 13))).toBe('1 2 3 4 5 6 7 8 9 10 11 12 13');
  });

  it('near the start: the first 10 pages and the last two', () => {
    expect(shown(pageWindow(1, 14))).toBe('1 2 3 4 5 6 7 8 9 10 ... 13 14');
    expect(shown(pageWindow(7, 50))).toBe('1 2 3 4 5 6 7 8 9 10 ... 49 50');
  });

  it('in the middle: the first two, the current page with 3 on each side, the last two', () => {
    expect(shown(pageWindow(8, 50))).toBe('1 2 ... 5 6 7 8 9 10 11 ... 49 50');
    expect(shown(pageWindow(500_000, 1_000_000))).toBe('1 2 ... 499997 499998 499999 500000 500001 500002 500003 ... 999999 1000000');
  });

  it('near the end: the first two and the last 10 pages, also past the last page', () => {
    expect(shown(pageWindow(44, 50))).toBe('1 2 ... 41 42 43 44 45 46 47 48 49 50');
    expect(shown(pageWindow(43, 50))).toBe('1 2 ... 40 41 42 43 44 45 46 ... 49 50');
    expect(shown(pageWindow(90, 50))).toBe('1 2 ... 41 42 43 44 45 46 47 48 49 50');
  });

  it('never lists more than 15 entries, however long the list', () => {
    for (const last of [14, 100, 10_000])
      for (const current of [1, 2, 7, 8, Math.floor(last / 2), last - 7, last - 6, last, last + 3])
        expect(pageWindow(current, last).length).toBeLessThanOrEqual(15);
  });
});
