import fc from 'fast-check';
import type { FieldDefinition } from '@app/contracts';
import { detectHeader, headerNames, isMadeUpHeaders, rowsAboveHeader } from './detect-header';
import { suggestMapping } from './suggest-mapping';
import { normalizeMapping } from './validate-mapping';

const f = (over: Partial<FieldDefinition> = {}): FieldDefinition => ({ description: '', data_type: 'string', is_required: false, ...over });
/** A contact schema written in English, for columns named in other languages. */
const contacts = () => ({
  email: f(),
  first_name: f(),
  last_name: f(),
  phone: f(),
  birth_date: f({ data_type: 'date' }),
  zip: f(),
  city: f(),
});

describe('suggestMapping', () => {
  it('matches by normalized name, label and synonyms, each header once', () => {
    const fields = { email: f(), first_name: f(), last_name: f(), zip: f({ label: 'Postal code' }), phone: f(), notes_x: f() };
    const headers = ['E-Mail Address', 'Given Name', 'Surname', 'Post Code', 'Mobile', 'Unrelated'];
    expect(suggestMapping(fields, headers)).toEqual({
      email: 'E-Mail Address',
      first_name: 'Given Name',
      last_name: 'Surname',
      zip: 'Post Code',
      phone: 'Mobile',
      notes_x: null,
    });
  });
  it('prefers an exact match over a synonym and never reuses a header', () => {
    const fields = { mail: f(), email: f() };
    expect(suggestMapping(fields, ['email'])).toEqual({ mail: null, email: 'email' });
  });
  it('gives each field the header written as its name (or label) when several are the same once normalised', () => {
    const fields = { email: f(), Email: f(), EMAIL: f(), contact: f({ label: 'E-mail' }) };
    expect(suggestMapping(fields, ['EMAIL', 'email', 'E-mail', 'Email'])).toEqual({
      email: 'email',
      Email: 'Email',
      EMAIL: 'EMAIL',
      contact: 'E-mail',
    });
  });
  it("maps a file's columns named in Spanish, French, German, Italian, Dutch or Polish onto a schema written in English", () => {
    const fields = { ...contacts(), country: f() };
    expect(
      suggestMapping(fields, [
        'Correo electrónico',
        'Nombre',
        'Apellidos',
        'Teléfono',
        'Fecha de nacimiento',
        'Código postal',
        'Ciudad',
        'País',
      ]),
    ).toEqual({
      email: 'Correo electrónico',
      first_name: 'Nombre',
      last_name: 'Apellidos',
      phone: 'Teléfono',
      birth_date: 'Fecha de nacimiento',
      zip: 'Código postal',
      city: 'Ciudad',
      country: 'País',
    });
    expect(suggestMapping(fields, ['Courriel', 'Prénom', 'Nom de famille', 'Code postal', 'Date de naissance'])).toMatchObject({
      email: 'Courriel',
      first_name: 'Prénom',
      last_name: 'Nom de famille',
      zip: 'Code postal',
      birth_date: 'Date de naissance',
    });
    expect(suggestMapping(fields, ['Vorname', 'Nachname', 'Geburtsdatum', 'Postleitzahl', 'Telefonnummer'])).toMatchObject({
      first_name: 'Vorname',
      last_name: 'Nachname',
      birth_date: 'Geburtsdatum',
      zip: 'Postleitzahl',
      phone: 'Telefonnummer',
    });
    expect(suggestMapping(fields, ['Nome', 'Cognome', 'Città'])).toMatchObject({ first_name: 'Nome', last_name: 'Cognome', city: 'Città' });
    expect(suggestMapping(fields, ['Voornaam', 'Achternaam', 'Woonplaats', 'Telefoonnummer'])).toMatchObject({
      first_name: 'Voornaam',
      last_name: 'Achternaam',
      city: 'Woonplaats',
      phone: 'Telefoonnummer',
    });
    // Letters NFKD does not take apart: "Straße" is "strasse".
    expect(suggestMapping({ address: f() }, ['Straße'])).toEqual({ address: 'Straße' });
    expect(suggestMapping(fields, ['Imię', 'Nazwisko', 'Miasto', 'Kod pocztowy'])).toMatchObject({
      first_name: 'Imię',
      last_name: 'Nazwisko',
      city: 'Miasto',
      zip: 'Kod pocztowy',
    });
  });
  it('maps columns named in Arabic, with the article or without it, with hamza or without, onto a schema written in English', () => {
    const fields = { ...contacts(), company: f() };
    expect(
      suggestMapping(fields, [
        'البريد الإلكتروني',
        'الاسم الأول',
        'اسم العائلة',
        'رقم الجوال',
        'تاريخ الميلاد',
        'الرمز البريدي',
        'المدينة',
        'اسم الشركة',
      ]),
    ).toEqual({
      email: 'البريد الإلكتروني',
      first_name: 'الاسم الأول',
      last_name: 'اسم العائلة',
      phone: 'رقم الجوال',
      birth_date: 'تاريخ الميلاد',
      zip: 'الرمز البريدي',
      city: 'المدينة',
      company: 'اسم الشركة',
    });
    // Written without hamza, without the article, with a vowel sign, the stretching line, or the direction marks of a
    // right-to-left cell, each is still the same name.
    expect(suggestMapping(fields, ['بريد الكتروني', '\u200fمدينة\u200f', 'الهـاتف', 'تاريخُ الميلاد'])).toMatchObject({
      email: 'بريد الكتروني',
      city: '\u200fمدينة\u200f',
      phone: 'الهـاتف',
      birth_date: 'تاريخُ الميلاد',
    });
    // Whose: the customer's phone is a phone; "الاسم" alone is a whole name, "اسم الشركة" is no person's.
    expect(suggestMapping({ phone: f(), name: f() }, ['هاتف العميل', 'اسم الشركة', 'الاسم'])).toEqual({
      phone: 'هاتف العميل',
      name: 'الاسم',
    });
    // Another thing: an order's date is no birth date, an order number no phone, the company's address no e-mail.
    expect(suggestMapping({ birth_date: f(), phone: f(), email: f() }, ['تاريخ الطلب', 'رقم الطلب', 'عنوان الشركة'])).toEqual({
      birth_date: null,
      phone: null,
      email: null,
    });
  });
  it('reads a word beginning with hamza on an alef as it is written, not as a word under the article', () => {
    // NFKD writes "إلكتروني" with a plain alef: taken for the article, its first two letters had gone.
    expect(suggestMapping({ website: f(), email: f() }, ['موقع إلكتروني', 'عنوان بريد إلكتروني'])).toEqual({
      website: 'موقع إلكتروني',
      email: 'عنوان بريد إلكتروني',
    });
    // A Persian letter is a letter: "ال" inside "پالایش" is no article, and it is not "پایش".
    expect(suggestMapping({ x: f({ label: 'پایش' }) }, ['پالایش'])).toEqual({ x: null });
    // Arabic-Indic digits are digits: "Address ٢" is "Address 2".
    expect(suggestMapping({ address_2: f({ label: 'Address 2' }) }, ['Address ٢'])).toEqual({ address_2: 'Address ٢' });
  });
  it('reads a header that names its column in two scripts by either name, and never swaps two such columns', () => {
    const fields = { name: f(), email: f(), phone: f(), mobile: f(), city: f(), first_name: f() };
    expect(
      suggestMapping(fields, [
        'Name / الاسم',
        'Email / البريد الإلكتروني',
        'Phone / الهاتف',
        'Mobile / الجوال',
        '城市 City',
        'Имя (First name)',
      ]),
    ).toEqual({
      name: 'Name / الاسم',
      email: 'Email / البريد الإلكتروني',
      phone: 'Phone / الهاتف',
      mobile: 'Mobile / الجوال',
      city: '城市 City',
      first_name: 'Имя (First name)',
    });
    expect(suggestMapping({ email: f() }, ['Ｅｍａｉｌアドレス'])).toEqual({ email: 'Ｅｍａｉｌアドレス' });
  });
  it('matches a column named exactly as a field in any script, whatever its case', () => {
    const fields = { fio: f({ label: 'Электронная почта' }), kana: f({ label: '電子メール' }), greek: f({ label: 'Πόλη' }) };
    expect(suggestMapping(fields, ['ЭЛЕКТРОННАЯ ПОЧТА', '電子メール', 'πόλη', 'Город'])).toEqual({
      fio: 'ЭЛЕКТРОННАЯ ПОЧТА',
      kana: '電子メール',
      greek: 'πόλη',
    });
  });
  it('reads a concept inside a longer column name: qualifiers ("Customer Email", "Email (work)") or a run of words ("Mobile phone number")', () => {
    const fields = { email: f(), phone: f(), zip: f(), contact_email: f({ label: 'Contact e-mail' }) };
    expect(suggestMapping({ email: f(), phone: f(), zip: f() }, ['Customer Email', 'Mobile phone number', 'Customer postal code'])).toEqual(
      {
        email: 'Customer Email',
        phone: 'Mobile phone number',
        zip: 'Customer postal code',
      },
    );
    expect(suggestMapping({ email: f() }, ['Email (work)'])).toEqual({ email: 'Email (work)' });
    expect(suggestMapping({ email: f() }, ['Teléfono del cliente', 'Correo del cliente'])).toEqual({ email: 'Correo del cliente' });
    // A field named at length finds the plain header, and a header named by the whole word wins over one inside a phrase.
    expect(suggestMapping(fields, ['E-mail', 'Email (work)'])).toEqual({
      email: 'E-mail',
      phone: null,
      zip: null,
      contact_email: 'Email (work)',
    });
  });
  it('reads a concept only where every other word says whose or which it is, never another person or another thing', () => {
    const contact = { email: f(), phone: f(), first_name: f(), last_name: f(), company: f(), country: f(), address: f(), city: f() };
    const none = Object.fromEntries(Object.keys(contact).map((k) => [k, null]));
    // Another person's e-mail and phone: a marketplace's seller, an employee's emergency contact and manager.
    expect(
      suggestMapping(contact, ['Seller email address', 'Seller phone number', 'Emergency contact phone number', 'Manager email']),
    ).toEqual(none);
    // Another thing: a flag, a kind, a size, dates of a first and last contact, a dialling code.
    expect(
      suggestMapping(contact, ['E-mail opt-in', 'E-mail 1 - Type', 'Phone type', 'Company size', 'First contact', 'Last contact']),
    ).toEqual(none);
    expect(suggestMapping(contact, ['Phone country code', 'Address 1 - Type', 'Street number', 'Email status'])).toEqual(none);
    expect(suggestMapping({ last_name: f() }, ['lastNameChangedAt'])).toEqual({ last_name: null });
    expect(suggestMapping({ birth_date: f() }, ['Date'])).toEqual({ birth_date: null });
    // "Nom du client", "Nombre del cliente", "Nome del cliente" are a customer's whole name: no first or last name.
    expect(suggestMapping(contact, ['Nom du client', 'Nombre del cliente', 'Nome del cliente', 'Nom du contact'])).toEqual(none);
    expect(suggestMapping({ customer_name: f(), first_name: f() }, ['Nombre del cliente'])).toEqual({
      customer_name: 'Nombre del cliente',
      first_name: null,
    });
    // Words that mean another thing in English are no synonyms: a field named "cap" does not take the ZIP code.
    expect(suggestMapping({ cap: f(), zip: f() }, ['ZIP code'])).toEqual({ cap: null, zip: 'ZIP code' });
    expect(suggestMapping({ cargo: f(), title: f() }, ['Position'])).toEqual({ cargo: null, title: 'Position' });
    // A unit price is no amount.
    expect(suggestMapping({ amount: f() }, ['Price', 'Quantity'])).toEqual({ amount: null });
    // Every word of one concept, and qualifiers on either side: still that concept.
    expect(suggestMapping({ phone: f() }, ['Teléfono móvil'])).toEqual({ phone: 'Teléfono móvil' });
    expect(suggestMapping({ phone: f() }, ['Telefono cellulare'])).toEqual({ phone: 'Telefono cellulare' });
    expect(suggestMapping({ id: f() }, ['Customer ID'])).toEqual({ id: 'Customer ID' });
  });
  it('compares a header of thousands of words by its whole only (a 256 KB header cell once took a minute)', () => {
    const sentence = Array.from({ length: 20_000 }, (_, i) => `word${i}`).join(' ');
    expect(suggestMapping({ email: f(), phone: f() }, [sentence, 'Phone'])).toEqual({ email: null, phone: 'Phone' });
  });
  it('takes no single word inside a longer name for the field it also names: "Last order date" is no last name', () => {
    const fields = { last_name: f(), first_name: f(), amount: f() };
    expect(suggestMapping(fields, ['Last order date', 'First purchase', 'Total orders placed'])).toEqual({
      last_name: null,
      first_name: null,
      amount: null,
    });
  });
  it('maps nothing when no header resembles a field', () => {
    expect(suggestMapping({ amount: f() }, ['colour', 'shape'])).toEqual({ amount: null });
  });
});

describe('normalizeMapping', () => {
  it('completes missing fields with null and reports unknown fields and headers', () => {
    const r = normalizeMapping({ a: 'H1', zz: 'H1', b: 'nope' }, ['a', 'b', 'c'], ['H1']);
    expect(r.mapping).toEqual({ a: 'H1', b: null, c: null });
    expect(r.problems.map((p) => p.field)).toEqual(['zz', 'b']);
  });

  it('answers a huge mapping in a few short lines: names cut at 100 characters, at most 20 problems and a count of the rest', () => {
    const long = 'H'.repeat(900_000);
    const many = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`unknown_${i}`, null]));
    const r = normalizeMapping({ a: long, b: 5, ...many }, ['a', 'b'], ['H1']);
    expect(r.problems).toHaveLength(21);
    expect(r.problems[0].message).toBe(`"${'H'.repeat(100)}…" is not a column of the source file.`);
    expect(r.problems[1].message).toBe('The column for "b" must be a column name or null.');
    expect(r.problems[20]).toEqual({ field: 'mapping_rule', message: 'And 39982 more problems.' });
    expect(r.problems.reduce((n, p) => n + p.message.length, 0)).toBeLessThan(3_000);
  });
});

describe('header detection', () => {
  it.each([
    [
      [
        ['name', 'email'],
        ['Ann', 'a@x.io'],
      ],
      true,
    ],
    // Every cell text, but an e-mail address over a column of them: the first record (it was read as names until 2026-12-03).
    [
      [
        ['Ann', 'a@x.io'],
        ['Bob', 'b@x.io'],
      ],
      false,
    ],
    [
      [
        ['1', 'a@x.io'],
        ['2', 'b@x.io'],
      ],
      false,
    ],
    [
      [
        ['name', ''],
        ['Ann', 'x'],
      ],
      false,
    ],
    [
      [
        ['a', 'a'],
        ['1', '2'],
      ],
      false,
    ],
    // A trailing delimiter, or an empty first column: empty in every row, so no reason to doubt the names.
    [
      [
        ['E-Mail', 'Note', ''],
        ['a@x.io', 'hi', ''],
        ['b@x.io', '', ''],
      ],
      true,
    ],
    [
      [
        ['', 'E-Mail', 'Born'],
        ['', 'a@x.io', '1990-01-01'],
      ],
      true,
    ],
    // A file of one row: nothing tells that the column is empty, so the empty cell counts, as before.
    [[['E-Mail', 'Note', '']], false],
    // An empty name over a column that has values is still no header; nor is a row of empty cells.
    [
      [
        ['E-Mail', '', ''],
        ['a@x.io', 'hi', ''],
      ],
      false,
    ],
    [
      [
        ['', ''],
        ['a', 'b'],
      ],
      false,
    ],
    [
      [
        ['', 'a', 'a'],
        ['', '1', '2'],
      ],
      false,
    ],
    [
      [
        ['2024-01-01', 'x'],
        ['2024-01-02', 'y'],
      ],
      false,
    ],
    // A name given twice (an export's contact and company e-mail), over a column of another kind than its name: a header.
    [
      [
        ['Company', 'E-Mail', 'Name', 'E-Mail'],
        ['Acme', 'info@acme.example', 'Ann', 'ann@acme.example'],
        ['Bolt', 'hi@bolt.example', 'Bob', 'bob@bolt.example'],
      ],
      true,
    ],
    [
      [
        ['E-mail', 'Years', 'Years'],
        ['a@x.org', '30', '1'],
      ],
      true,
    ],
    // A record repeating a value over records of the same kinds: no header (the first of those has no column of
    // another kind; the second's only such column is under an e-mail address; the third repeats most of its names).
    [
      [
        ['Berlin', 'Berlin', 'Ann'],
        ['Paris', 'Lyon', 'Bob'],
      ],
      false,
    ],
    [
      [
        ['ann@x.org', 'Berlin', 'Berlin'],
        ['bob@x.org', 'Paris', 'Lyon'],
      ],
      false,
    ],
    // A placeholder repeated over numbers is a record's (n/a, -), not names.
    [
      [
        ['Widget', 'n/a', 'n/a', 'Blue'],
        ['Gadget', '12', '3', 'Red'],
      ],
      false,
    ],
    [
      [
        ['Widget', '-', '-', 'Blue'],
        ['Gadget', '12', '3', 'Red'],
      ],
      false,
    ],
    // A name that shows an address as its example is a name.
    [
      [
        ['Name', 'Email (name@example.com)', 'Company'],
        ['Ann', 'ann@x.io', 'Acme'],
      ],
      true,
    ],
    // Nor is a first record of unique text values whose e-mail address is over a column of them.
    [
      [
        ['ann@x.org', 'Ann', 'Berlin'],
        ['bob@x.org', 'Bob', 'Paris'],
      ],
      false,
    ],
    [
      [
        ['yes', 'yes', 'yes', 'Ann'],
        ['1', '2', '3', 'Bob'],
      ],
      false,
    ],
  ])('%j -> %s', (sample, expected) => expect(detectHeader(sample)).toBe(expected));

  describe('an empty header cell over a column with a few values below it', () => {
    // A header with a trailing delimiter, over rows of which `spilled` were broken by an unquoted comma.
    const sampleOf = (rowsBelow: number, spilled: number) => [
      ['E-mail', 'Name', 'Age', ''],
      ...Array.from({ length: rowsBelow }, (_, i) =>
        i < spilled ? [`u${i}@x.io`, 'Smith', ' Ann', '41'] : [`u${i}@x.io`, 'Ann Smith', '41', ''],
      ),
    ];

    it('is still a header when one row in ten or fewer has a value there', () => {
      expect(detectHeader(sampleOf(19, 1))).toBe(true);
      expect(detectHeader(sampleOf(10, 1))).toBe(true);
    });

    it('is not a header when more rows have a value there, or when fewer than ten rows are below', () => {
      expect(detectHeader(sampleOf(19, 2))).toBe(false);
      expect(detectHeader(sampleOf(9, 1))).toBe(false);
    });

    it('is not a header when the empty cell is before the last name (column A, a gap): no broken row puts a value there', () => {
      const gap = [['E-mail', '', 'Age'], ...Array.from({ length: 19 }, (_, i) => [`u${i}@x.io`, i === 4 ? 'Ann' : '', '41'])];
      expect(detectHeader(gap)).toBe(false);
      const columnA = [['', 'E-mail', 'Name'], ...Array.from({ length: 19 }, (_, i) => [i === 4 ? 'x' : '', `u${i}@x.io`, 'Ann'])];
      expect(detectHeader(columnA)).toBe(false);
    });
  });

  it('tells the names made up for a table without a header from a header', () => {
    expect(isMadeUpHeaders(headerNames([], false, 3))).toBe(true);
    expect(isMadeUpHeaders(['column_1', 'column_3'])).toBe(false);
    expect(isMadeUpHeaders(['E-mail', 'column_2'])).toBe(false);
    expect(isMadeUpHeaders([])).toBe(false);
  });

  it('names columns column_N without a header and de-duplicates given names', () => {
    expect(headerNames(['x', 'y'], false, 3)).toEqual(['column_1', 'column_2', 'column_3']);
    expect(headerNames(['id', 'id', ''], true, 3)).toEqual(['id', 'id_2', 'column_3']);
  });

  it('never makes up a name the file gives another column, so each column keeps one name of its own', () => {
    expect(headerNames(['name', 'name', 'name_2', 'email'], true, 4)).toEqual(['name', 'name_3', 'name_2', 'email']);
    expect(headerNames(['name', '', 'column_2'], true, 3)).toEqual(['name', 'column_2_2', 'column_2']);
    expect(headerNames(['a', 'a', 'a', 'a_2', 'a_3'], true, 5)).toEqual(['a', 'a_4', 'a_5', 'a_2', 'a_3']);
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'a_2', 'a_3', '', ' ', 'column_1', 'column_2', 'column_2_2'), { maxLength: 8 }), (row) => {
        const names = headerNames(row, true, row.length);
        expect(new Set(names).size).toBe(names.length);
        // A name the file gives once, or first, stays with its column.
        row.forEach((given, i) => {
          if (given.trim() !== '' && row.findIndex((g) => g.trim() === given.trim()) === i) expect(names[i]).toBe(given.trim());
        });
      }),
    );
  });
});

describe('rows above the header (a title)', () => {
  const table = [
    ['Name', 'E-Mail', 'City'],
    ['Ann', 'ann@x.io', 'Berlin'],
    ['Bob', 'bob@x.io', ''],
  ];

  it.each<[string, string[][], number]>([
    ['a workbook title in A1', [['Customer export'], ...table], 1],
    ['the same sheet saved as CSV (the title row padded with delimiters)', [['Customer export', '', ''], ...table], 1],
    ['a title and a date line', [['Customer export'], ['Made 2024-01-05'], ...table], 2],
    ['a title centred over the table (its one value in B)', [['', 'Customer export', ''], ...table], 1],
    ['no title', table, 0],
    ['a first record of one plain number', [['1001', '', ''], ...table], 0],
    ['a row under the "title" that reads as data, not as names', [['Customer export'], ['1', 'ann@x.io', 'Berlin'], ...table.slice(1)], 0],
    ['a one-column file', [['Name'], ['Ann'], ['Bob'], ['Cleo']], 0],
    ['a title over a header with nothing under it', [['Customer export'], ['Name', 'E-Mail']], 0],
    [
      'most rows under the header with one value',
      [['Customer export'], ['Name', 'E-Mail'], ['Ann', ''], ['Bob', ''], ['Cleo', 'c@x.io']],
      0,
    ],
    ['more title lines than a title takes', [['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ...table], 0],
    ['as many title lines as a title takes', [['a'], ['b'], ['c'], ['d'], ['e'], ...table], 5],
    // A headerless file whose first record has one value: its second record is no header.
    [
      'a record of one value over a record with an e-mail',
      [
        ['Ann Lee', '', ''],
        ['Bob Stone', 'bob@x.org', 'Berlin'],
        ['Cleo', 'c@y.de', 'Rome'],
      ],
      0,
    ],
    [
      'an e-mail alone over records with e-mails',
      [
        ['', 'ann@x.org', ''],
        ['Bob Stone', 'bob.s@x.org', 'Berlin'],
        ['Cleo', 'c@y.de', 'Rome'],
      ],
      0,
    ],
    [
      'a code alone over records with codes',
      [
        ['A-100', '', ''],
        ['B-200', 'Widget', 'Blue'],
        ['C-300', 'Bolt', 'Red'],
      ],
      0,
    ],
    // One column with unquoted commas: half its rows split in two. Not most.
    ['a list of one column whose names have commas', [['Names'], ['Smith', ' John'], ['Doe', ' Jane'], ['Roe']], 0],
    [
      'a header with digits over numbers',
      [['Sales report'], ['Region', 'Q1 2024', 'Q2 2024'], ['North', '12', '14'], ['South', '9', '11']],
      1,
    ],
    [
      'a title over a header that names two columns alike',
      [
        ['CRM Export'],
        ['Name', 'E-Mail', 'Company', 'E-Mail'],
        ['Ann', 'ann@x.io', 'Acme', 'info@acme.io'],
        ['Bob', 'bob@x.io', 'Bolt', ''],
      ],
      1,
    ],
  ])('%s', (_case, sample, above) => {
    expect(rowsAboveHeader(sample)).toBe(above);
  });
});
