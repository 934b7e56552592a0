import fc from 'fast-check';
import type { FieldDefinition } from '@app/contracts';
import { planFields } from './map-row';
import { compileFieldCheck } from './field-validators';
import { detached, rememberResults } from './remembered-results';
import { compileTransformations } from './transformations';

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

describe('a field plan with remembered transformations and checks', () => {
  // Schemas whose transformations and checks do real work, and values that repeat, are new, are long or are cut
  // from a longer text (as a reader's cells are): the plan answers exactly as the functions compiled without memory.
  const fields: Record<string, FieldDefinition> = {
    day: {
      description: 'd',
      data_type: 'date',
      is_required: false,
      transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
    },
    code: {
      description: 'c',
      data_type: 'string',
      is_required: false,
      pattern: '^[A-Z]{2}-\\d{3}$',
      transformations: { uppercase: { enabled: true } },
    },
    amount: { description: 'a', data_type: 'number', is_required: true, transformations: { trim_whitespace: { enabled: true } } },
    mail: { description: 'm', data_type: 'email', is_required: false, transformations: { lowercase: { enabled: true } } },
  };
  const names = Object.keys(fields);
  const few = fc.constantFrom('01/02/2020', '31/02/2020', 'ab-123', 'AB-1234', ' 12.5 ', '', 'x@Y.com', 'not a mail');
  const fresh = fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String), fc.emailAddress());
  const long = fc.string({ minLength: 65, maxLength: 80 });
  const cut = fc.tuple(fresh, fc.string({ maxLength: 4 })).map(([v, pad]) => `${pad}${v}${pad}`.slice(pad.length, pad.length + v.length));
  const value = fc.oneof({ arbitrary: few, weight: 4 }, fresh, long, cut);

  it('gives every cell the value and problem the plain compiled functions give', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 300 }), (values) => {
        const plan = planFields(fields, Object.fromEntries(names.map((n) => [n, n])), names);
        for (const v of values)
          plan.forEach((p) => {
            const plainValue = compileTransformations(p.field)(v);
            expect(p.transform(v)).toBe(plainValue);
            expect(p.check(plainValue)).toEqual(compileFieldCheck(p.field)(plainValue));
            expect(p.typeCheck(plainValue)).toEqual(compileFieldCheck({ ...p.field, pattern: undefined })(plainValue));
          });
      }),
      { numRuns: 80 },
    );
  });
});
