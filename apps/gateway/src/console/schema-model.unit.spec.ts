import { compileTextRules, KNOWN_DATA_TYPES, KNOWN_TRANSFORMATIONS, typeValue, validateTransformations } from '@app/domain';
import { personalCheckMessage, personalSetMessage, personalTransformationMessage } from './page/check-messages';
import {
  bothCasesOn,
  checksFromSchema,
  fieldsFromRows,
  jsonTypeProblems,
  rowsFromFields,
  schemaFromChecks,
  schemaFromJson,
  schemaOptions,
  DATA_TYPES,
  emptyField,
  isTransformationOn,
  TRANSFORMATIONS,
  transformationMisfit,
} from './page/schema-model';

/** schemaFromJson's reading of a text that is a schema. */
const readSchema = (value: unknown) => {
  const read = schemaFromJson(JSON.stringify(value));
  if (typeof read === 'string') throw new Error(read);
  return read;
};

describe("the console's schema form model", () => {
  it('keeps a field’s validators through the form unchanged, so saving the form drops none', () => {
    const fields = {
      code: {
        description: 'Code',
        data_type: 'string',
        is_required: true,
        pattern: '^[A-Z]{2}-\\d{3}$',
        min_length: 6,
        max_length: 6,
        unique: true,
      },
      qty: { description: 'Qty', data_type: 'integer', is_required: false, min: 1, max: 100 },
      due: { description: 'Due', data_type: 'date', is_required: false, min: '2024-01-01' },
      note: { description: 'Note', data_type: 'string', is_required: false },
    };
    expect(fieldsFromRows(rowsFromFields(fields))).toEqual(fields);
  });

  it('keeps any other member the form has no input for, untouched', () => {
    const fields = {
      code: { description: 'Code', data_type: 'string', is_required: true, label: 'Code', some_future_option: { deep: [1, 2] } },
    };
    expect(fieldsFromRows(rowsFromFields(fields))).toEqual(fields);
  });

  it("lets the form's own inputs win over what it read", () => {
    const [row] = rowsFromFields({ a: { description: 'A', data_type: 'string', is_required: false, label: 'Old' } });
    expect(row.other).toEqual({});
    expect(fieldsFromRows([{ ...row, label: 'New', is_required: true }])).toEqual({
      a: { description: 'A', data_type: 'string', is_required: true, label: 'New' },
    });
  });

  it("keeps a schema's options beside name and fields, its checks in their inputs, and none of the resource's own members", () => {
    const resource = {
      id: '3fc78df8-476c-4edf-8ab7-a0b2929f6187',
      name: 'Orders',
      fields: { a: { description: 'A', data_type: 'string', is_required: false } },
      validation_url: 'https://hooks.example.com/check',
      unique_with: [['a', 'b']],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    };
    expect(schemaOptions({ ...resource, some_future_option: 1 })).toEqual({ some_future_option: 1 });
    expect(checksFromSchema(resource)).toEqual({ validation_url: 'https://hooks.example.com/check', unique_with: 'a, b' });
    expect(schemaOptions({ name: 'Bare', fields: resource.fields })).toEqual({});
  });

  it('reads the checks typed in the form: bounds as numbers where they are, dates and anything else as text for the API to judge', () => {
    const [qty, due, code] = rowsFromFields({
      qty: { description: 'Qty', data_type: 'integer', is_required: false },
      due: { description: 'Due', data_type: 'date', is_required: false },
      code: { description: 'Code', data_type: 'string', is_required: false },
    });
    const fields = fieldsFromRows([
      { ...qty, min: ' 1 ', max: '1e3' },
      { ...due, min: '2024', max: '2024-12-31' },
      { ...code, pattern: '^[A-Z]+ $', min_length: '2', max_length: 'ten', unique: true },
    ]);
    expect(fields).toEqual({
      qty: { description: 'Qty', data_type: 'integer', is_required: false, min: 1, max: 1000 },
      due: { description: 'Due', data_type: 'date', is_required: false, min: '2024', max: '2024-12-31' },
      code: {
        description: 'Code',
        data_type: 'string',
        is_required: false,
        pattern: '^[A-Z]+ $',
        min_length: 2,
        max_length: 'ten',
        unique: true,
      },
    });
    expect(rowsFromFields(fields).map((r) => [r.min, r.max, r.min_length, r.max_length, r.unique])).toEqual([
      ['1', '1000', '', '', false],
      ['2024', '2024-12-31', '', '', false],
      ['', '', '2', 'ten', true],
    ]);
  });

  it("edits a schema's unique_with as one set per line and its validation_url, and sends neither when empty", () => {
    const checks = checksFromSchema({
      unique_with: [
        ['name', 'city'],
        ['a', 'b', 'c'],
      ],
      validation_url: 'https://hooks.example.com/v',
    });
    expect(checks).toEqual({ unique_with: 'name, city\na, b, c', validation_url: 'https://hooks.example.com/v' });
    expect(schemaFromChecks({ unique_with: ' name ,city\n\n a,b , c, ', validation_url: ' https://hooks.example.com/v ' })).toEqual({
      unique_with: [
        ['name', 'city'],
        ['a', 'b', 'c'],
      ],
      validation_url: 'https://hooks.example.com/v',
    });
    expect(schemaFromChecks({ unique_with: '\n ', validation_url: '' })).toEqual({});
    // A set of one stays a set of one: the API says sets need two names.
    expect(schemaFromChecks({ unique_with: 'name', validation_url: '' })).toEqual({ unique_with: [['name']] });
  });

  it('sends a field named "__proto__" as a field, for the API to refuse by name (assigned, it set the prototype and vanished)', () => {
    const [email] = rowsFromFields({ email: { description: 'E-mail', data_type: 'email', is_required: true } });
    const sent = JSON.parse(JSON.stringify(fieldsFromRows([email, { ...email, name: '__proto__', description: 'Sneaky' }])));
    expect(Object.keys(sent)).toEqual(['email', '__proto__']);
    expect(Object.getPrototypeOf(fieldsFromRows([{ ...email, name: '__proto__' }]))).toBe(Object.prototype);
  });

  it('takes JSON into the form only when it is a schema or its fields; any other shape is refused, not an emptied form', () => {
    const fields = { email: { description: 'E-mail', data_type: 'email', is_required: true } };
    expect(schemaFromJson(JSON.stringify({ name: 'People', fields, validation_url: null }))).toMatchObject({
      name: 'People',
      fields,
      whole: true,
    });
    expect(schemaFromJson(JSON.stringify(fields))).toMatchObject({ name: null, fields, whole: false });
    expect(schemaFromJson('{"name": "X", "fields": ')).toBe('not json');
    for (const other of ['[1,2,3]', '"hello"', 'null', '{}', '{"name":"X","fields":[{"email":{}}]}', '{"fields":{"a":1}}', '{"a":"b"}'])
      expect([other, schemaFromJson(other)]).toEqual([other, 'not a schema']);
  });

  it('refuses pasted members of the wrong type, naming the field and the member, instead of reading them as something else', () => {
    const fields = {
      email: { description: 'E-mail', data_type: 'email', is_required: 'yes' },
      tier: { description: 'Tier', data_type: 'enum', is_required: false, allowed_values: 'gold, silver' },
      level: { description: 'Level', data_type: 'enum', is_required: false, allowed_values: [{ value: 'a' }, 5, { label: 'no value' }] },
      note: {
        description: 7,
        data_type: 'string',
        is_required: false,
        unique: 'true',
        min_length: [1],
        transformations: { trim_whitespace: { enabled: 'on' }, date_format: { enabled: true, to: 5 } },
        descriptions: { de: 3 },
      },
      price: { description: 'Price', data_type: 'number', is_required: false, number_format: { locale: 'de-DE', currency: 'yes' } },
    };
    expect(jsonTypeProblems(readSchema({ name: 'Bad', fields, unique_with: [['email', 2]], validation_url: 5 }))).toEqual([
      { field: null, member: 'validation_url', expected: 'text', got: '5' },
      { field: null, member: 'unique_with[1]', expected: 'field_set', got: '["email",2]' },
      { field: 'email', member: 'is_required', expected: 'boolean', got: '"yes"' },
      { field: 'tier', member: 'allowed_values', expected: 'value_list', got: '"gold, silver"' },
      { field: 'level', member: 'allowed_values[2]', expected: 'value_entry', got: '5' },
      { field: 'level', member: 'allowed_values[3]', expected: 'value_entry', got: '{"label":"no value"}' },
      { field: 'note', member: 'description', expected: 'text', got: '7' },
      { field: 'note', member: 'unique', expected: 'boolean', got: '"true"' },
      { field: 'note', member: 'min_length', expected: 'number_or_text', got: '[1]' },
      { field: 'note', member: 'descriptions.de', expected: 'text', got: '3' },
      { field: 'note', member: 'transformations.trim_whitespace.enabled', expected: 'boolean', got: '"on"' },
      { field: 'note', member: 'transformations.date_format.to', expected: 'text', got: '5' },
      { field: 'price', member: 'number_format.currency', expected: 'boolean', got: '"yes"' },
    ]);
    // A name that is no text is said too (it was dropped, the form keeping the old name), and a long value is cut short.
    expect(jsonTypeProblems(readSchema({ name: ['x'.repeat(60)], fields: { a: { data_type: 'string' } } }))).toEqual([
      { field: null, member: 'name', expected: 'text', got: `["${'x'.repeat(37)}…` },
    ]);
  });

  it("takes what the API writes back (nulls for an unset label or format) and a picklist's values as text alone", () => {
    const fromApi = {
      name: 'People',
      validation_url: null,
      unique_with: [['email', 'tier']],
      fields: {
        email: { description: 'E-mail', data_type: 'email', is_required: true, label: null, format: null, min: 1, max: '2024-01-01' },
        tier: {
          description: 'Tier',
          data_type: 'enum',
          is_required: false,
          allowed_values: ['gold', { value: 'silver', label: 'Silver' }],
        },
      },
    };
    expect(jsonTypeProblems(readSchema(fromApi))).toEqual([]);
    // A bare object of fields: the schema's members are not read.
    expect(jsonTypeProblems(readSchema(fromApi.fields))).toEqual([]);
    // Values written as text are values without a label: nothing is lost on the way to the API.
    const tier = rowsFromFields(fromApi.fields).find((r) => r.name === 'tier')!;
    expect(tier.allowed_values).toBe('gold\nsilver | Silver');
    expect(fieldsFromRows([tier]).tier).toMatchObject({ allowed_values: [{ value: 'gold' }, { value: 'silver', label: 'Silver' }] });
  });

  it('places the API\'s messages about "Rewrite dates" at the pattern they are about, in the form\'s words; others stay as written', () => {
    const t = (key: string, params: Record<string, string | number> = {}) =>
      Object.keys(params).length ? `${key}(${Object.values(params).join(', ')})` : key;
    // The domain's own messages, so that a change of their words shows here.
    const said = (options: unknown) => validateTransformations({ date_format: options }).map((m) => personalTransformationMessage(m, t));
    expect(said({ enabled: true })).toEqual([{ input: 'df-to', text: 'transformation.to_missing' }]);
    expect(said({ enabled: true, to: 'no pattern' })).toEqual([{ input: 'df-to', text: 'transformation.not_a_pattern(no pattern)' }]);
    expect(said({ enabled: true, to: 'yyyy-MM-dd', from: 'qq; "x" is not one' })).toEqual([
      { input: 'df-from', text: 'transformation.not_a_pattern(qq; "x" is not one)' },
    ]);
    expect(said({ enabled: true, to: 'yyyy-MM-dd', from: 3 })).toEqual([{ input: 'df-from', text: 'transformation.from_not_text' }]);
    const other = validateTransformations({ shout: { enabled: true } })[0];
    expect(personalTransformationMessage(other, t)).toEqual({ input: null, text: other });
  });

  it("says the API's messages about checks in the form's words; one it does not know, as the API wrote it", () => {
    const t = (key: string, params: Record<string, string | number> = {}) =>
      Object.keys(params).length
        ? `${key}(${Object.entries(params)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')})`
        : key;
    expect(personalCheckMessage('min_length must not be greater than max_length.', false, t)).toBe('checks.msg.min_length_over_max_length');
    expect(personalCheckMessage('min must not be greater than max.', false, t)).toBe('checks.msg.min_over_max');
    expect(personalCheckMessage('min must not be greater than max.', true, t)).toBe('checks.msg.min_after_max');
    expect(personalCheckMessage('max_length must be an integer from 0 to 1000000.', false, t)).toBe('checks.msg.max_length_range');
    expect(personalCheckMessage('min must be a finite number.', false, t)).toBe('checks.msg.min_number');
    expect(personalCheckMessage('max must be an ISO 8601 date or date-time string (2024-01-31 or 2024-01-31T08:00:00).', true, t)).toBe(
      'checks.msg.max_date',
    );
    expect(
      personalCheckMessage(
        'The pattern is not a regular expression RE2 accepts (backreferences and lookaround are not supported): error parsing regexp: missing closing ): `(abc`.',
        false,
        t,
      ),
    ).toBe('checks.msg.pattern_syntax(reason=checks.re.at(reason=checks.re.missing_paren, at=(abc))');
    expect(
      personalCheckMessage(
        'The pattern is not a regular expression RE2 accepts (backreferences and lookaround are not supported): error parsing regexp: something new.',
        false,
        t,
      ),
    ).toBe('checks.msg.pattern_syntax(reason=something new)');
    const unknown =
      'The pattern can backtrack catastrophically (a repeated group inside a repetition, such as (a+)+): write it without nested repetition.';
    expect(personalCheckMessage(unknown, false, t)).toBe(unknown);
    expect(personalSetMessage('Each entry of unique_with must be a list of two or more field names.', t)).toBe('schema.set_too_small');
    expect(personalSetMessage('A field may be named only once in a set of unique_with.', t)).toBe('schema.set_repeats');
    expect(personalSetMessage('The schema has no field named "x".', t)).toBe('The schema has no field named "x".');
  });

  describe('which transformations suit which data type', () => {
    const suited = (dataType: string, allowed = '') =>
      TRANSFORMATIONS.filter((name) => transformationMisfit(name, { data_type: dataType, allowed_values: allowed }) === null);

    it('offers every transformation the service knows, and covers every data type it checks', () => {
      expect([...TRANSFORMATIONS].sort()).toEqual([...KNOWN_TRANSFORMATIONS].sort());
      expect([...DATA_TYPES].sort()).toEqual([...KNOWN_DATA_TYPES].sort());
    });

    it('trims everywhere, rewrites dates only in date fields, and changes letter case only in text', () => {
      const table = Object.fromEntries([...DATA_TYPES, 'sku_code'].map((d) => [d, suited(d)]));
      expect(table).toEqual({
        string: ['trim_whitespace', 'uppercase', 'lowercase'],
        text: ['trim_whitespace', 'uppercase', 'lowercase'],
        email: ['trim_whitespace', 'uppercase', 'lowercase'],
        url: ['trim_whitespace', 'uppercase', 'lowercase'],
        number: ['trim_whitespace'],
        integer: ['trim_whitespace'],
        boolean: ['trim_whitespace'],
        // A picklist with no values yet: nothing a case could miss.
        enum: ['trim_whitespace', 'uppercase', 'lowercase'],
        date: ['trim_whitespace', 'date_format'],
        datetime: ['trim_whitespace', 'date_format'],
        phone: ['trim_whitespace'],
        country: ['trim_whitespace'],
        // A type the service does not know is taken as text.
        sku_code: ['trim_whitespace', 'uppercase', 'lowercase'],
      });
      expect(transformationMisfit('date_format', { data_type: 'string', allowed_values: '' })).toEqual({ reason: 'type' });
      expect(transformationMisfit('uppercase', { data_type: 'integer', allowed_values: '' })).toEqual({ reason: 'type' });
    });

    it('offers a case on a picklist only when every allowed value is in it, naming the first that is not', () => {
      expect(suited('enum', 'GOLD | Gold\nSILVER | Silver | de=Silber\n\n  B2 ')).toEqual(['trim_whitespace', 'uppercase']);
      expect(transformationMisfit('lowercase', { data_type: 'enum', allowed_values: 'GOLD | Gold\nSILVER' })).toEqual({
        reason: 'picklist',
        value: 'GOLD',
      });
      expect(transformationMisfit('uppercase', { data_type: 'enum', allowed_values: 'GOLD\nSilver | Silver' })).toEqual({
        reason: 'picklist',
        value: 'Silver',
      });
      // Labels are no values: "gold | Gold" may be lower-cased.
      expect(suited('enum', 'gold | Gold\n42')).toEqual(['trim_whitespace', 'lowercase']);
    });

    it('a case rule said not to suit a type does nothing for its values: none it refused passes, none it took changes', () => {
      const samples: [Record<string, unknown>, string[]][] = [
        [{ data_type: 'number' }, ['12.5', '1e3', 'abc', '']],
        [{ data_type: 'integer' }, ['42', '4.2', 'x']],
        [{ data_type: 'boolean' }, ['Yes', 'no', 'True', 'maybe']],
        [{ data_type: 'date' }, ['2024-01-31', 'not a date']],
        [{ data_type: 'date', format: 'dd MMM yyyy' }, ['31 Jan 2024', '31 JAN 2024', '31 Foo 2024']],
        [{ data_type: 'datetime' }, ['2024-01-31T08:00:00Z', '2024-01-31 08:00']],
        [{ data_type: 'phone', default_region: 'DE' }, ['+49 30 123456', '030 123456 ext 12', 'call me']],
        [{ data_type: 'country' }, ['de', 'Germany', 'deu', 'Atlantis']],
      ];
      for (const [def, values] of samples) {
        const field = { description: '', is_required: false, ...def } as Parameters<typeof typeValue>[1];
        expect(transformationMisfit('uppercase', { data_type: field.data_type, allowed_values: '' })).toEqual({ reason: 'type' });
        // What the type makes of a value: dates are kept as written, so only whether they are dates is its reading of them.
        const typed = (v: string) => {
          const { value, problem } = typeValue(v, field);
          return { problem, value: field.data_type.startsWith('date') || problem ? null : value };
        };
        for (const raw of values)
          for (const cased of [raw.toUpperCase(), raw.toLowerCase()]) {
            const after = typed(cased);
            // Either the same reading as without the rule, or a value the type now refuses (spoiled).
            if (after.problem === null) expect({ def, raw, cased, after }).toEqual({ def, raw, cased, after: typed(raw) });
          }
      }
      // Spoiled: lower case takes the T and Z out of an ISO date-time.
      expect(typeValue('2024-01-31T08:00:00Z'.toLowerCase(), { description: '', data_type: 'datetime', is_required: false }).problem).toBe(
        'type',
      );
    });

    it('says lower case wins when both cases are on, as the service applies it after upper case', () => {
      const row = { ...emptyField(), name: 'code' };
      const cases = (uppercase: boolean, lowercase: boolean) => ({
        ...row,
        transformations: { ...row.transformations, uppercase, lowercase },
      });
      expect([bothCasesOn(row), bothCasesOn(cases(true, false)), bothCasesOn(cases(false, true))]).toEqual([false, false, false]);
      expect(bothCasesOn(cases(true, true))).toBe(true);
      // The note's claim holds for the field the form sends: its values end in lower case.
      const sent = fieldsFromRows([cases(true, true)]).code as Parameters<typeof compileTextRules>[0];
      expect(compileTextRules(sent)?.('MiXed Case')).toBe('mixed case');
    });

    it('never drops a transformation a saved schema has on a type it does not suit', () => {
      const fields = {
        qty: {
          description: 'Qty',
          data_type: 'integer',
          is_required: false,
          transformations: { trim_whitespace: { enabled: true }, uppercase: { enabled: true }, lowercase: { enabled: true } },
        },
        note: {
          description: 'Note',
          data_type: 'string',
          is_required: false,
          transformations: { date_format: { enabled: true, to: 'yyyy-MM-dd', from: 'dd/MM/yyyy' } },
        },
      };
      const [qty, note] = rowsFromFields(fields);
      expect(TRANSFORMATIONS.filter((name) => isTransformationOn(name, qty))).toEqual(['trim_whitespace', 'uppercase', 'lowercase']);
      expect(TRANSFORMATIONS.filter((name) => isTransformationOn(name, note))).toEqual(['date_format']);
      expect(fieldsFromRows([qty, note])).toEqual(fields);
      // A type changed under them keeps them too: the form sends what is ticked.
      expect(fieldsFromRows([{ ...note, data_type: 'boolean' }]).note).toMatchObject({
        data_type: 'boolean',
        transformations: fields.note.transformations,
      });
      expect(TRANSFORMATIONS.filter((name) => isTransformationOn(name, emptyField()))).toEqual([]);
    });
  });
});
