import fc from 'fast-check';
import type { FieldDefinition } from '@app/contracts';
import { cellProblem, compileCellProblem, planFields } from './map-row';
import type { AppliedFix } from './value-fixes';
import { detached, RememberedResults, rememberedShare, rememberResults } from './remembered-results';

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

  it('judges a small memory after four look-ups per result it keeps, not after 8,192', () => {
    const memory = new RememberedResults<string>((r) => r, 68);
    const lookUp = (text: string) => memory.recall(text) ?? memory.remember(text, text);
    for (let i = 0; i < 271; i++) lookUp(`id-${i}`);
    expect(memory.on).toBe(true);
    lookUp('id-271');
    expect(memory.on).toBe(false);
  });

  it('keeps a small memory on while its column fits in it, and computes each value once', () => {
    const calls: string[] = [];
    const remembered = rememberResults(
      (text) => (calls.push(text), `<${text}>`),
      (r) => r,
      68,
    );
    for (let i = 0; i < 10_000; i++) expect(remembered(`tier ${i % 60}`)).toBe(`<tier ${i % 60}>`);
    expect(calls).toHaveLength(60);
  });

  it('turns a small memory off after one round when its column does not fit, and still answers every value right', () => {
    const memory = new RememberedResults<string>((r) => r, 68);
    let computed = 0;
    const lookUp = (text: string) => memory.recall(text) ?? memory.remember(text, (computed++, `<${text}>`));
    // 100 values in turn: the memory empties before any comes back, so its first round of 272 knows none.
    for (let i = 0; i < 272; i++) expect(lookUp(`code ${i % 100}`)).toBe(`<code ${i % 100}>`);
    expect(memory.on).toBe(false);
    for (let i = 272; i < 1_000; i++) expect(lookUp(`code ${i % 100}`)).toBe(`<code ${i % 100}>`);
    expect(computed).toBe(1_000);
  });

  it('keeps no more than its capacity, and none at a capacity of 0', () => {
    const calls: string[] = [];
    const remembered = rememberResults(
      (text) => (calls.push(text), text),
      (r) => r,
      2,
    );
    for (const v of ['a', 'b', 'a', 'b', 'c', 'a']) remembered(v);
    // 'c' found the memory full (a, b) and emptied it, so 'a' was computed again.
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
    expect(new RememberedResults<string>((r) => r, 0).on).toBe(false);
  });

  it('shares one budget among the fields of a read, however many a schema has', () => {
    for (const fields of [1, 4, 50, 511, 512, 513, 1000, 5000]) {
      const share = rememberedShare(fields);
      expect(share * fields).toBeLessThanOrEqual(8192);
      expect(share === 0 || share >= 16).toBe(true);
    }
    expect(rememberedShare(4)).toBe(2048);
    expect(rememberedShare(1000)).toBe(0);
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

describe('a cell problem compiled for a whole read', () => {
  // Fields whose transformations and checks do real work, with and without a reviewer's fix and uniqueness, and cells
  // that repeat, are new, are long or are cut from a longer text: the compiled problem is cellProblem's, row by row.
  const fields: Record<string, FieldDefinition> = {
    day: {
      description: 'd',
      data_type: 'date',
      is_required: true,
      transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
    },
    code: {
      description: 'c',
      data_type: 'string',
      is_required: false,
      pattern: '^[A-Z]{2}-\\d{3}$',
      transformations: { uppercase: { enabled: true } },
    },
    amount: { description: 'a', data_type: 'number', is_required: false, transformations: { trim_whitespace: { enabled: true } } },
    mail: { description: 'm', data_type: 'email', is_required: false },
  };
  const names = Object.keys(fields);
  // Values in near pairs (one character apart, different answers), so a memory that confused them would be caught.
  const few = fc.constantFrom(
    '01/02/2020',
    '01/13/2020',
    '31/02/2020',
    'ab-123',
    'ab-12',
    'AB-1234',
    ' 12.5 ',
    ' 12.5x',
    '',
    'x@y.com',
    'x@y',
    'not a mail',
  );
  const fresh = fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String), fc.emailAddress());
  const long = fc.string({ minLength: 65, maxLength: 80 });
  const cut = fc.tuple(fresh, fc.string({ maxLength: 4 })).map(([v, pad]) => `${pad}${v}${pad}`.slice(pad.length, pad.length + v.length));
  const cell = fc.oneof({ arbitrary: few, weight: 4 }, fresh, long, cut);
  const fix: AppliedFix = {
    fix_id: 'f1',
    field: 'amount',
    fix: { kind: 'replace', find: '1', replace: 'x', whole_value: false },
    fixed_at: 't',
  };

  it('is cellProblem’s for every row, with or without fixes and uniqueness', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 200 }),
        fc.boolean(),
        (rows, withFix) => {
          const duplicates = { mail: new Uint8Array(Math.ceil((rows.length + 1) / 8)).fill(0b10100100) };
          const plan = planFields(fields, Object.fromEntries(names.map((n) => [n, n])), names, withFix ? [fix] : [], duplicates);
          const compiled = plan.map((p) => compileCellProblem(p, 64));
          rows.forEach((row, i) => plan.forEach((p, f) => expect(compiled[f](row, i + 1)).toBe(cellProblem(p, row, i + 1))));
        },
      ),
      { numRuns: 100 },
    );
  });
});
