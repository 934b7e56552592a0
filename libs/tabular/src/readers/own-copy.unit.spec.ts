import v8 from 'node:v8';
import vm from 'node:vm';
import { ownCopy } from './own-copy';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap in use after `keep` has cut 35 characters out of each of ten 5 MB texts and kept the cuts. */
function heapKeptBy(keep: (cut: string) => string): { mb: number; kept: string[] } {
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  const kept: string[] = [];
  for (let i = 0; i < 10; i++) {
    const text = `${i}${'abcdefghij'.repeat(500_000)}`;
    kept.push(keep(text.substring(5, 40)));
  }
  gc();
  return { mb: (v8.getHeapStatistics().used_heap_size - before) / 1e6, kept };
}

describe('ownCopy', () => {
  it('keeps the characters and lets the text they were cut from go', () => {
    const copies = heapKeptBy(ownCopy);
    const views = heapKeptBy((cut) => cut);
    expect(copies.kept).toEqual(views.kept);
    expect(views.mb).toBeGreaterThan(40); // each cut kept its 5 MB text
    expect(copies.mb).toBeLessThan(5);
  });

  it('gives short strings back as they are (V8 copies cuts under 13 characters itself)', () => {
    expect(ownCopy('')).toBe('');
    expect(ownCopy('a😀b')).toBe('a😀b');
    const long = `x${'é'.repeat(100)}`;
    expect(ownCopy(long)).toBe(long);
  });
});
