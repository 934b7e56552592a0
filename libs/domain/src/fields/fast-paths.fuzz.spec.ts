import fc from 'fast-check';
import isEmail from 'validator/lib/isEmail';
import isURL from 'validator/lib/isURL';
import { isValid, parseISO } from 'date-fns';
import { isEmailAddress, isPlainIsoDay, isWebAddress } from './typed-value';

/** The fast paths must never change a verdict: compared with the libraries they skip. */
describe('typing fast paths agree with the libraries', () => {
  const chars = (alphabet: string, min: number, max: number) =>
    fc.array(fc.constantFrom(...alphabet.split('')), { minLength: min, maxLength: max }).map((a) => a.join(''));
  const local = chars('abcXYZ019._%+-', 1, 70);
  const label = chars('abz09-', 1, 70);
  const tld = chars('abcdefghijklmnopqrstuvwxyzQ019-', 1, 70);
  const emailLike = fc
    .tuple(local, fc.array(label, { minLength: 1, maxLength: 4 }), tld)
    .map(([l, labels, t]) => `${l}@${labels.join('.')}.${t}`);

  it('email: everyday-shaped and arbitrary strings get the same verdict as validator isEmail', () => {
    fc.assert(
      fc.property(fc.oneof(emailLike, fc.string({ maxLength: 80 })), (s) => {
        expect(isEmailAddress(s)).toBe(isEmail(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it('email: the common cases are accepted and the broken ones refused', () => {
    expect(isEmailAddress('user12@example.com')).toBe(true);
    expect(isEmailAddress('first.last+tag@sub.example.co')).toBe(true);
    for (const bad of [
      'a..b@example.com',
      '.a@example.com',
      'a@-example.com',
      'a@example-.com',
      'a@example.c',
      'a@example.123',
      'a@@example.com',
    ]) {
      expect({ bad, ok: isEmailAddress(bad) }).toEqual({ bad, ok: false });
    }
  });

  it('email: a lone surrogate is refused, not thrown on (isEmail throws a URIError), and so is an unseen character', () => {
    expect(() => isEmail('\ud800@b.c')).toThrow(URIError);
    for (const bad of ['\ud800@b.c', 'a\udc00b@example.com', 'ada\u200b@example.com', 'ada@example.com\ufeff', 'ada@exa\u00admple.com']) {
      expect({ bad, ok: isEmailAddress(bad) }).toEqual({ bad, ok: false });
    }
    // The joiners some scripts need stay as isEmail has them.
    expect(isEmailAddress('\u0915\u094d\u200d@example.com')).toBe(isEmail('\u0915\u094d\u200d@example.com'));
  });

  const scheme = fc.constantFrom('', 'http://', 'https://', 'HTTPS://', 'ftp://', 'ws://', 'mailto:', 'http:/', '//', 'http://user:pw@');
  const tail = fc.oneof(
    fc.constantFrom(
      '',
      '/',
      '/a/b.html',
      '?q=1&r=a:b',
      '#top',
      '/p?x=/y#z',
      ':8080/x',
      ':0',
      ':99999',
      '@host.com',
      '/a b',
      '/<x>',
      '.',
      '/ü',
    ),
    chars('/?#:@.%&=+aZ9-_ <>\u00e9', 0, 20),
  );
  const urlLike = fc
    .tuple(scheme, fc.array(chars('abZ09-_', 1, 66), { minLength: 1, maxLength: 4 }), chars('abcdefghijklmnopqrstuvwxyzQ019-', 1, 66), tail)
    .map(([sc, labels, t, rest]) => `${sc}${labels.join('.')}.${t}${rest}`);

  it('url: everyday-shaped and arbitrary strings get the same verdict as validator isURL', () => {
    fc.assert(
      fc.property(fc.oneof(urlLike, fc.string({ maxLength: 80 })), (s) => {
        expect(isWebAddress(s)).toBe(isURL(s));
      }),
      { numRuns: 20_000 },
    );
    const long = `https://example.com/${'a'.repeat(2084)}`;
    expect([isWebAddress(long), isURL(long)]).toEqual([false, false]);
  });

  it('url: the common cases are accepted and the broken ones refused', () => {
    for (const ok of [
      'https://shop12.example.com/customers/7?tab=orders#top',
      'http://example.co.uk',
      'www.example.com/a:b',
      'FTP://files.example.org/x',
    ])
      expect({ ok, accepted: isWebAddress(ok) }).toEqual({ ok, accepted: true });
    for (const bad of [
      'https://-example.com',
      'https://example-.com',
      'https://example.c',
      'https://example.123',
      'https://exa mple.com',
      'ws://example.com',
      'mailto:a@example.com',
      'https://example.com:99999',
    ])
      expect({ bad, accepted: isWebAddress(bad) }).toEqual({ bad, accepted: false });
  });

  it('ISO day: true only for days date-fns parseISO reads as valid', () => {
    const day = fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    fc.assert(
      fc.property(fc.oneof(day, fc.string({ maxLength: 12 })), (s) => {
        if (isPlainIsoDay(s)) expect(isValid(parseISO(s))).toBe(true);
        else if (/^\d{4}-\d{2}-\d{2}$/.test(s) && s >= '0001') expect(isValid(parseISO(s))).toBe(false);
      }),
      { numRuns: 20_000 },
    );
    expect([isPlainIsoDay('2024-02-29'), isPlainIsoDay('2023-02-29'), isPlainIsoDay('1900-02-29'), isPlainIsoDay('2000-02-29')]).toEqual([
      true,
      false,
      false,
      true,
    ]);
  });
});
