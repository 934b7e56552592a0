import { RepeatedLines } from './repeated-lines';

describe('RepeatedLines', () => {
  it('writes the first line of a kind, counts the others of its window, and hands the count to the next line written', () => {
    const lines = new RepeatedLines(1000);
    expect(lines.admit('GET /runs/:id 200 org-1', 0)).toBe(0);
    expect(lines.admit('GET /runs/:id 200 org-1', 10)).toBeNull();
    expect(lines.admit('GET /runs/:id 200 org-1', 999)).toBeNull();
    expect(lines.admit('GET /runs/:id 200 org-1', 1000)).toBe(2);
    expect(lines.admit('GET /runs/:id 200 org-1', 1500)).toBeNull();
    expect(lines.admit('GET /runs/:id 200 org-1', 5000)).toBe(1);
    expect(lines.admit('GET /runs/:id 200 org-1', 9000)).toBe(0);
  });

  it('keeps each kind apart: a quiet kind has every line written while another floods', () => {
    const lines = new RepeatedLines(1000);
    const written = { flood: 0, other: 0 };
    for (let t = 0; t < 3000; t++) {
      if (lines.admit('flood', t) !== null) written.flood++;
      if (t % 1500 === 0 && lines.admit('other', t) !== null) written.other++;
    }
    expect(written).toEqual({ flood: 3, other: 2 });
  });

  it('ends the window when the clock is set back, instead of holding lines back until it catches up', () => {
    const lines = new RepeatedLines(1000);
    expect(lines.admit('k', 50_000)).toBe(0);
    expect(lines.admit('k', 50_100)).toBeNull();
    expect(lines.admit('k', 10_000)).toBe(1); // an hour earlier by the clock: written, with the one counted
    expect(lines.admit('k', 10_500)).toBeNull();
  });

  it('writes every line with a window of 0', () => {
    const lines = new RepeatedLines(0);
    expect([1, 2, 3].map((t) => lines.admit('k', t))).toEqual([0, 0, 0]);
  });

  it('starts over past 10,000 kinds (each kind then writes its next line) instead of growing', () => {
    const lines = new RepeatedLines(1000);
    expect(lines.admit('kind 0', 0)).toBe(0);
    expect(lines.admit('kind 0', 1)).toBeNull();
    for (let i = 1; i < 10_000; i++) lines.admit(`kind ${i}`, 2);
    expect(lines.admit('kind 0', 3)).toBeNull(); // still remembered: 10,000 kinds fit
    expect(lines.admit('kind 10000', 4)).toBe(0); // the memory starts over here
    expect(lines.admit('kind 0', 5)).toBe(0);
    expect(lines.admit('kind 0', 6)).toBeNull();
  });
});
