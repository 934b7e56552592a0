import { allowedValueLabel, suggestAllowedValue, validatePicklistAndDescriptions } from './picklists';

const ALLOWED = [
  { value: 'platinum', label: 'Platinum' },
  { value: 'gold', label: 'Gold' },
  { value: 'silver', label: 'Silber' },
  { value: 'pt', label: 'Portugal' },
  { value: 'bronze', label: 'Bronze', labels: { de: 'Bronze', fr: 'Cuivre' } },
];

describe('picklist suggestions', () => {
  it.each([
    ['gold', 'gold'], // exact
    ['GOLD', 'gold'], // case
    ['Silber', 'silver'], // the label
    ['Plat.', 'platinum'], // an abbreviation of one value only
    ['Platïnum', 'platinum'], // accents
    ['Platnum', 'platinum'], // one letter off
    ['portugal ', 'pt'], // trimmed, by label
    ['po', null], // too short to be an abbreviation
    ['cuivre', 'bronze'], // a label in another language
    ['copper', null],
    ['', null],
  ])('%j -> %j', (source, expected) => expect(suggestAllowedValue(source, ALLOWED)).toBe(expected));

  it('does not guess between two values an abbreviation could mean', () => {
    expect(suggestAllowedValue('Sil', [{ value: 'silver' }, { value: 'silk' }])).toBeNull();
  });
});

describe('picklist labels by locale', () => {
  const a = { value: 'silver', label: 'Silver', labels: { de: 'Silber' } };
  it("shows the locale's label, else the default label, else the value", () => {
    expect(allowedValueLabel(a, 'de')).toBe('Silber');
    expect(allowedValueLabel(a, 'fr')).toBe('Silver');
    expect(allowedValueLabel({ value: 'silver' }, 'de')).toBe('silver');
  });

  it('refuses labels of unknown locales, not text, or too long', () => {
    const problems = validatePicklistAndDescriptions({
      data_type: 'enum',
      allowed_values: [
        { value: 'a', labels: { de: 'A', xx: 'y', fr: 3, es: 'x'.repeat(201) } },
        { value: 'b', labels: ['A'] },
      ],
    });
    expect(problems.map((p) => p.at)).toEqual([
      'allowed_values.0.labels.xx',
      'allowed_values.0.labels.fr',
      'allowed_values.0.labels.es',
      'allowed_values.1.labels',
    ]);
  });

  it('refuses a value with blanks around it, which a trimmed cell could never meet (a probe saved " x ")', () => {
    const problems = validatePicklistAndDescriptions({
      data_type: 'enum',
      allowed_values: [{ value: ' x ' }, { value: 'y\u00a0' }, { value: 'a b' }],
    });
    expect(problems).toEqual([
      { at: 'allowed_values.0.value', problem: 'A value must not begin or end with blanks (cells are compared trimmed).' },
      { at: 'allowed_values.1.value', problem: 'A value must not begin or end with blanks (cells are compared trimmed).' },
    ]);
  });
});
