import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { isDecimalNumber, typeValue } from './typed-value';

/** The regular expression the number check used to run: the language isDecimalNumber must keep. */
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

describe('number check', () => {
  it('accepts exactly the strings the former regular expression accepted', () => {
    const chars = fc.constantFrom(...'0123456789.+-eEx '.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 12 }), (cs) => {
        const s = cs.join('');
        expect({ s, ok: isDecimalNumber(s) }).toEqual({ s, ok: NUMBER_RE.test(s) });
      }),
      { numRuns: 20000 },
    );
  });

  it('checks a cell as long as the field limit in linear time (the regular expression took minutes)', () => {
    const cell = '1'.repeat(262_144) + 'x';
    const started = process.hrtime.bigint();
    expect(typeValue(cell, { description: '', data_type: 'number', is_required: false }).problem).toBe('type');
    expect(typeValue(`-${'9'.repeat(262_144)}.5e`, { description: '', data_type: 'integer', is_required: false }).problem).toBe('type');
    // Linear: a few milliseconds; the quadratic regex needed about 168 s for the first cell. The
    // bound leaves room for a stalled CI machine and still fails a quadratic check by far.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });
});

describe('numbers the output carries exactly, or keeps as text with a problem (found by a probe: 100000000000000001 was written 100000000000000000)', () => {
  const integerField = { description: '', data_type: 'integer', is_required: false };
  const numberField = { description: '', data_type: 'number', is_required: false };
  const germanField = { ...numberField, number_format: { locale: 'de-DE' } };

  it('an integer of any size: typed only when the typed value is the number written', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (written) => {
        const typed = typeValue(String(written), integerField);
        // What the JSON output writes is the number written, digit for digit.
        if (typed.problem === null) expect(new Decimal(JSON.stringify(typed.value)).eq(new Decimal(String(written)))).toBe(true);
        else expect({ problem: typed.problem, value: typed.value }).toEqual({ problem: 'type', value: String(written) });
        // Every integer below 2^53 is carried.
        if (written < 2n ** 53n && written > -(2n ** 53n)) expect(typed.problem).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('any double as JavaScript, Python or numpy writes it is typed as that double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        for (const written of [String(d), d.toExponential(18)]) {
          const typed = typeValue(written, numberField);
          expect({ written, typed }).toEqual({ written, typed: { value: d === 0 ? 0 : d, problem: null } });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a number field: digits alone carried digit for digit, or a problem', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (written) => {
        for (const field of [numberField, germanField]) {
          const typed = typeValue(String(written), field);
          if (typed.problem === null) expect(new Decimal(JSON.stringify(typed.value)).eq(new Decimal(String(written)))).toBe(true);
          else expect(typed.problem).toBe('type');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    [integerField, '100000000000000001', 'type'],
    [integerField, '9007199254740993', 'type'],
    [integerField, '9007199254740992', null],
    [numberField, '12345678901234567', 'type'],
    // A fraction: a double's digits, the double they stand for.
    [numberField, '12345678901234567.89', null],
    [numberField, '6.022140759999999870e+23', null],
    [numberField, '1e-400', 'type'],
    [numberField, '0e-400', null],
    [numberField, '-0.000', null],
    [numberField, '1e300', null],
    [germanField, '12.345.678.901.234.567', 'type'],
    // An integer field: a fraction the double drops, or digits it cannot carry, written any way (a review's findings).
    [integerField, '1.00000000000000001', 'type'],
    [integerField, '4503599627370496.5', 'type'],
    [integerField, '3.0', null],
    [integerField, '1.5e1', null],
    [{ ...integerField, number_format: { locale: 'de-DE' } }, '9.007.199.254.740.993,00', 'type'],
    [{ ...integerField, number_format: { locale: 'de-DE' } }, '9.007.199.254.740.992,00', null],
    [{ ...integerField, number_format: { locale: 'en', percent: true } }, '900719925474099300%', 'type'],
    [germanField, '12.345.678.901.234.567,89', null],
    [germanField, '1.234,5', null],
  ])('%#: %o %s', (field, written, problem) => {
    expect(typeValue(written, field).problem).toBe(problem);
  });
});
