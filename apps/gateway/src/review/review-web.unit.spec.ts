import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REVIEW_LOCALES, ReviewWeb, localeFromAcceptLanguage, supportedLocale, type Message } from './review-web';

const placeholders = (m: string): string[] => [...m.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();
const forms = (m: Message): string[] => (typeof m === 'string' ? [m] : Object.values<string>(m));

describe('review page translation catalogs', () => {
  const web = new ReviewWeb();
  const en = web.catalogs.get('en')!;

  it.each(REVIEW_LOCALES.filter((l) => l !== 'en'))('%s has exactly the English keys, each translated', (locale) => {
    const catalog = web.catalogs.get(locale)!;
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
    for (const [key, message] of Object.entries(catalog)) {
      expect(typeof message).toBe(typeof en[key]);
      for (const form of forms(message)) expect(form.trim()).not.toBe('');
    }
  });

  it.each(REVIEW_LOCALES)('%s gives every plural category its language uses, and no others', (locale) => {
    const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories.slice().sort();
    for (const [key, message] of Object.entries(web.catalogs.get(locale)!)) {
      if (typeof message === 'string') continue;
      expect({ key, categories: Object.keys(message).sort() }).toEqual({ key, categories });
    }
  });

  it.each(REVIEW_LOCALES)('%s uses only the placeholders of the English message (the "other" form all of them)', (locale) => {
    for (const [key, message] of Object.entries(web.catalogs.get(locale)!)) {
      const english = placeholders(forms(en[key]).join(' '));
      for (const form of forms(message)) {
        for (const p of placeholders(form)) expect({ key, p, known: english.includes(p) }).toEqual({ key, p, known: true });
      }
      const full = typeof message === 'string' ? message : message.other!;
      expect({ key, placeholders: [...new Set(placeholders(full))] }).toEqual({ key, placeholders: [...new Set(english)] });
    }
  });

  it.each(REVIEW_LOCALES)('%s says a last page of one hidden row as that row ("Listed: row 51 of 51"), not as a range of it', (locale) => {
    const listed = web.catalogs.get(locale)!.hidden_rows_listed as Partial<Record<Intl.LDMLPluralRule, string>>;
    // Chosen by the count of rows listed: "one" is 1 alone in every catalog's language from 1 to 50.
    const rules = new Intl.PluralRules(locale);
    expect(Array.from({ length: 50 }, (_, i) => i + 1).filter((n) => rules.select(n) === 'one')).toEqual([1]);
    expect(placeholders(listed.one!)).toEqual(['first', 'total']);
    expect(placeholders(listed.other!)).toEqual(['first', 'last', 'total']);
  });

  it('fr keeps its space before a colon, a semicolon, ! and ? and inside « » from breaking (no-break, never a plain space)', () => {
    for (const [key, message] of Object.entries(web.catalogs.get('fr')!)) {
      for (const form of forms(message)) {
        expect({ key, plain: form.match(/ [:;!?»]|« /g) ?? [] }).toEqual({ key, plain: [] });
        // A full no-break space before a colon, a narrow one before ; ! ? and inside guillemets.
        expect({ key, narrowColon: form.includes('\u202f:'), wideElse: /\u00a0[;!?»]|«\u00a0/.test(form) }).toEqual({
          key,
          narrowColon: false,
          wideElse: false,
        });
      }
    }
    expect(web.catalogs.get('fr')!.summary_encoding).toBe('Encodage\u00a0: {encoding}');
  });

  it('words every error the review calls may answer (as docs/api.md lists them) in every language', () => {
    const api = readFileSync(join(__dirname, '../../../../docs/api.md'), 'utf8');
    const listed = /The answers you may see from them are listed[\s\S]*?`503 source_unavailable`/.exec(api)![0];
    const codes = [...listed.matchAll(/`\d{3} ([a-z_]+)`/g)].map((m) => m[1]);
    expect(codes).toEqual(expect.arrayContaining(['sheet_unreadable', 'source_file_unterminated_quote', 'encoding_unreadable']));
    // Said by a page state or a message of their own (state.ts): the expired or invalid link, a conflict, bytes an encoding lacks.
    const ownWords = new Set(['invalid_signature', 'review_expired', 'mapping_conflict', 'encoding_unreadable']);
    const unworded = codes.filter((code) => !ownWords.has(code) && !(`errors.${code}` in en));
    expect(unworded).toEqual([]);
  });

  it('serves the page script and style under a content hash', () => {
    for (const name of ['review.js', 'review.css']) {
      const asset = web.asset(name)!;
      expect(asset.path).toMatch(new RegExp(`^/review-assets/${name.replace('.', '\\.')}\\?v=[\\w-]{16}$`));
      expect(asset.body.length).toBeGreaterThan(1000);
    }
    expect(web.asset('../review.page.ts')).toBeUndefined();
  });
});

describe('review page locale', () => {
  it.each([
    ['AR', 'ar'],
    ['de', 'de'],
    ['pt', 'en'],
    [null, 'en'],
    ['', 'en'],
  ])('run locale %p shows %p', (given, shown) => expect(supportedLocale(given)).toBe(shown));

  it.each([
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['sv-SE,fr;q=0.5', 'fr'],
    ['en;q=0.1, pl;q=0.9', 'pl'],
    ['ja', 'en'],
    [undefined, 'en'],
    ['ar;q=0', 'en'],
  ])('Accept-Language %p picks %p', (header, locale) => expect(localeFromAcceptLanguage(header)).toBe(locale));
});
