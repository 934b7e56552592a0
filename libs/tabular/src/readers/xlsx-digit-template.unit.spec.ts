import { digitTemplateOf, digitTemplateText } from './xlsx-digit-template';

const shown = (code: string, n: number) => {
  const template = digitTemplateOf(code);
  if (!template) throw new Error(`${code} is no template`);
  return digitTemplateText(n, template);
};

describe('number formats that pad whole numbers with zeros', () => {
  it.each([
    ['00000', 1234, '01234'], // Excel's "Zip Code"
    ['00000', 123456, '123456'], // more digits than places: all shown, before the first
    ['00000', 0, '00000'],
    ['00000-0000', 123456789, '12345-6789'], // "Zip Code + 4"
    ['00000-0000', 2345678, '00234-5678'],
    ['000-00-0000', 78051120, '078-05-1120'], // "Social Security Number"
    ['"DE"000000', 42, 'DE000042'],
    ['\\#000', 7, '#007'],
    ['(000) 000', 12345, '(012) 345'],
  ])('%s shows %d as %s', (code, n, text) => expect(shown(code, n)).toBe(text));

  it('leaves every other number as the plain number (null): a fraction, a negative, one too long for a double', () => {
    for (const n of [1234.5, -1234, 1e15, Number.NaN]) expect(digitTemplateText(n, digitTemplateOf('00000')!)).toBeNull();
  });

  it('takes only codes of 0 placeholders and literal text, never a decimal, a #, a section, a colour or a condition', () => {
    for (const code of [
      '0',
      'General',
      '0.00',
      '#,##0',
      '###-####',
      '00000;[Red]-00000',
      '[<=9999999]000-0000',
      '0%',
      '000"',
      'yyyy',
      '0E+00',
    ])
      expect([code, digitTemplateOf(code)]).toEqual([code, null]);
    expect(digitTemplateOf('00000')).not.toBeNull();
    expect(digitTemplateOf('0-0')).not.toBeNull();
  });
});
