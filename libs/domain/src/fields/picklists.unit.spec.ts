import { suggestAllowedValue } from './picklists';

const ALLOWED = [
  { value: 'platinum', label: 'Platinum' },
  { value: 'gold', label: 'Gold' },
  { value: 'silver', label: 'Silber' },
  { value: 'pt', label: 'Portugal' },
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
    ['bronze', null],
    ['', null],
  ])('%j -> %j', (source, expected) => expect(suggestAllowedValue(source, ALLOWED)).toBe(expected));

  it('does not guess between two values an abbreviation could mean', () => {
    expect(suggestAllowedValue('Sil', [{ value: 'silver' }, { value: 'silk' }])).toBeNull();
  });
});
