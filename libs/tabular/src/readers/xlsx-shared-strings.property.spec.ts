import fc from 'fast-check';
import { SharedStrings } from './xlsx-shared-strings';

const BLOCK = 1 << 20;

/** Text of one-, two-, three- and four-byte UTF-8 characters, so block ends fall inside characters too. */
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom('a', ',', 'é', 'ß', '€', '語', '😀'), maxLength });

describe('SharedStrings', () => {
  it('gives back every string as added, wherever the blocks of 1 MiB cut them', () => {
    fc.assert(
      fc.property(
        // Long strings (a random piece repeated, up to 3.2 MB) cross block ends at any byte; short ones fill between.
        fc.array(
          fc.oneof(
            { arbitrary: text(40), weight: 4 },
            { arbitrary: fc.tuple(text(8), fc.integer({ min: 1, max: 100_000 })).map(([piece, times]) => piece.repeat(times)), weight: 1 },
          ),
          { maxLength: 12 },
        ),
        (strings) => {
          const table = new SharedStrings(256 * BLOCK);
          for (const s of strings) table.add(s);
          strings.forEach((s, i) => expect(table.get(i)).toBe(s));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads a string split inside a character at a block end, and one spanning whole blocks', () => {
    const table = new SharedStrings(64 * BLOCK);
    const head = 'a'.repeat(BLOCK - 1);
    const across = '€'.repeat(10); // its first character's three bytes start one byte before the block ends
    const span = '語'.repeat(BLOCK); // 3 MiB: over three blocks
    for (const s of [head, across, '', span, 'end']) table.add(s);
    expect(table.get(0)).toBe(head);
    expect(table.get(1)).toBe(across);
    expect(table.get(2)).toBe('');
    expect(table.get(3)).toBe(span);
    expect(table.get(4)).toBe('end');
  });

  it('reads a last string that ends exactly where its block ends', () => {
    const table = new SharedStrings(64 * BLOCK);
    table.add('a'.repeat(BLOCK));
    expect(table.get(0)).toBe('a'.repeat(BLOCK));
    table.add('b');
    expect(table.get(1)).toBe('b');
  });

  it('keeps the offsets of more strings than a block of them holds (262,144)', () => {
    const table = new SharedStrings(64 * BLOCK);
    const count = 600_000;
    for (let i = 0; i < count; i++) table.add(i % 7 === 0 ? '' : `s${i}`);
    for (const i of [0, 1, 262_143, 262_144, 262_145, 524_287, 524_288, count - 1]) expect(table.get(i)).toBe(i % 7 === 0 ? '' : `s${i}`);
    expect(() => table.get(count)).toThrow(/shared text number 600000/);
  });

  it('counts the text and an offset per string against the budget, as before', () => {
    const table = new SharedStrings(100);
    table.add('x'.repeat(80 - 4)); // 76 bytes + 4 for its offset
    expect(() => table.add('é'.repeat(9))).toThrow('its shared strings take more than 100 bytes.'); // 18 + 8 over 24 left
    table.add('y'.repeat(16)); // 16 + 8: exactly 100
    expect(table.get(1)).toBe('y'.repeat(16));
    expect(() => table.get(2)).toThrow(/shared text number 2/);
  });
});
