/**
 * The phone and country libraries are loaded only when a phone or country field is used: a
 * schema without them does not pay their memory in each thread (phone-country.ts).
 */
const loaded: string[] = [];
jest.mock('libphonenumber-js', () => {
  loaded.push('libphonenumber-js');
  return jest.requireActual('libphonenumber-js');
});
jest.mock('i18n-iso-countries', () => {
  loaded.push('i18n-iso-countries');
  return jest.requireActual('i18n-iso-countries');
});

describe('the phone and country libraries', () => {
  it('are loaded when a phone or country field is first used, not with the domain', () => {
    jest.isolateModules(() => {
      const domain = jest.requireActual<typeof import('../index')>('../index');
      domain.compileTypeCheck({ description: 'e', data_type: 'email', is_required: false });
      expect(loaded).toEqual([]);
      expect(domain.isPhoneRegion('DE')).toBe(true);
      expect(loaded).toEqual(['libphonenumber-js']);
      expect(domain.compileCountryReader('alpha2')('Allemagne')).toBe('DE');
      expect(loaded).toEqual(['libphonenumber-js', 'i18n-iso-countries']);
    });
  });
});
