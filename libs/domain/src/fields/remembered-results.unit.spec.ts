import fc from 'fast-check';
import { detached, RememberedResults, rememberResults } from './remembered-results';

it('copies a text kept for later exactly, lone surrogates included', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.nat(5), (text, cut) => {
      const part = `${'x'.repeat(cut)}${text}`.slice(cut);
      expect(detached(part)).toBe(text);
    }),
  );
});

describe('remembered results', () => {
  const counting = () => {
    const calls = new Map<string, number>();
    const compute = (text: string) => {
      calls.set(text, (calls.get(text) ?? 0) + 1);
      return `<${text.toUpperCase()}>`;
    };
    return { calls, remembered: rememberResults(compute, (r) => r) };
  };

  it('computes a repeated short value once', () => {
    const { calls, remembered } = counting();
    for (let i = 0; i < 30_000; i++) expect(remembered(`city ${i % 50}`)).toBe(`<CITY ${i % 50}>`);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    expect(calls.size).toBe(50);
  });

  it('turns itself off after a round of mostly new values, and still answers every value right', () => {
    const { calls, remembered } = counting();
    for (let i = 0; i < 10_000; i++) remembered(`id-${i}`);
    for (let i = 0; i < 100; i++) expect(remembered('same')).toBe('<SAME>');
    expect(calls.get('same')).toBe(100);
  });

  it('says when it has turned itself off, and then recalls nothing', () => {
    const memory = new RememberedResults<string>((r) => r);
    memory.remember('same', 'kept');
    expect(memory.recall('same')).toBe('kept');
    for (let i = 0; i < 10_000 && memory.on; i++) memory.remember(`id-${i}`, String(memory.recall(`id-${i}`)));
    expect(memory.on).toBe(false);
    expect(memory.recall('same')).toBeUndefined();
  });

  it('never keeps a long value', () => {
    const { calls, remembered } = counting();
    const long = 'x'.repeat(65);
    remembered(long);
    remembered(long);
    expect(calls.get(long)).toBe(2);
  });

  it('keeps what `keep` makes of a result', () => {
    const remembered = rememberResults(
      (text) => ({ text }),
      (r) => Object.freeze({ ...r }),
    );
    const first = remembered('a');
    expect(Object.isFrozen(first)).toBe(true);
    expect(remembered('a')).toBe(first);
  });
});
