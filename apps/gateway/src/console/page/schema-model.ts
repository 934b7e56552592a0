/**
 * A target schema as the form edits it, and back to the API's JSON (docs/api.md, "Field definitions").
 * Pure functions: the form keeps rows of plain strings and booleans; the API's rules and messages stay the server's.
 */

export const DATA_TYPES = [
  'string',
  'text',
  'email',
  'url',
  'number',
  'integer',
  'boolean',
  'enum',
  'date',
  'datetime',
  'phone',
  'country',
] as const;
export const COUNTRY_FORMATS = ['alpha2', 'alpha3', 'name'] as const;
export const SIMPLE_TRANSFORMATIONS = ['trim_whitespace', 'uppercase', 'lowercase'] as const;

export interface FieldRow {
  key: number;
  name: string;
  description: string;
  /** "de: Beschreibung" per line: the description in other review languages. */
  descriptions: string;
  data_type: string;
  is_required: boolean;
  label: string;
  format: string;
  transformations: Record<(typeof SIMPLE_TRANSFORMATIONS)[number], boolean>;
  date_format: { enabled: boolean; from: string; to: string };
  /** One value per line: `value | label | de=Label, fr=Libellé`. */
  allowed_values: string;
  /** A number field's number_format: a locale or separators ("" = not given), currency and percent. */
  number_format: { locale: string; decimal: string; group: string; currency: boolean; percent: boolean };
  /** A phone field's region for national numbers ("" = none). */
  default_region: string;
  /** A country field's output ("" = alpha2, the default). */
  country_format: string;
  /** Validators (docs/api.md, "Validators"): as typed; min/max a number, or an ISO date for date fields ("" = none). */
  pattern: string;
  min: string;
  max: string;
  min_length: string;
  max_length: string;
  unique: boolean;
  /** The definition's members this form has no input for, written back untouched (nothing set elsewhere is lost). */
  other: Record<string, unknown>;
}

let nextKey = 1;
export const emptyField = (): FieldRow => ({
  key: nextKey++,
  name: '',
  description: '',
  descriptions: '',
  data_type: 'string',
  is_required: false,
  label: '',
  format: '',
  transformations: { trim_whitespace: false, uppercase: false, lowercase: false },
  date_format: { enabled: false, from: '', to: '' },
  allowed_values: '',
  number_format: { locale: '', decimal: '', group: '', currency: false, percent: false },
  default_region: '',
  country_format: '',
  pattern: '',
  min: '',
  max: '',
  min_length: '',
  max_length: '',
  unique: false,
  other: {},
});

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const without = (source: Json, known: readonly string[]): Json =>
  Object.fromEntries(Object.entries(source).filter(([key]) => !known.includes(key)));

/** The members of a field definition the form edits; any other one (set through the API or the JSON view) is kept as it is. */
const FIELD_MEMBERS = [
  'description',
  'descriptions',
  'data_type',
  'is_required',
  'label',
  'format',
  'transformations',
  'allowed_values',
  'number_format',
  'default_region',
  'country_format',
  'pattern',
  'min',
  'max',
  'min_length',
  'max_length',
  'unique',
] as const;

/** The schema's members the form edits, and what the resource says about itself (never sent back). */
const SCHEMA_MEMBERS = ['id', 'name', 'fields', 'validation_url', 'unique_with', 'created_at', 'updated_at'] as const;

/** A schema's members the form has no input for, to send back as they were. */
export const schemaOptions = (schema: unknown): Json => without(obj(schema), SCHEMA_MEMBERS);

/** A schema's own checks as the form edits them: the hook's address, and one set of field names per line (`name, city`). */
export interface SchemaChecks {
  validation_url: string;
  unique_with: string;
}

export function checksFromSchema(schema: unknown): SchemaChecks {
  const s = obj(schema);
  return {
    validation_url: str(s.validation_url),
    unique_with: (Array.isArray(s.unique_with) ? s.unique_with : [])
      .map((set) => (Array.isArray(set) ? set.map((f) => String(f)).join(', ') : ''))
      .join('\n'),
  };
}

/** The API's `validation_url` and `unique_with` (only those given: an absent one is none). */
export function schemaFromChecks(checks: SchemaChecks): Json {
  const sets = checks.unique_with
    .split('\n')
    .map((line) =>
      line
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    )
    .filter((set) => set.length > 0);
  return {
    ...(checks.validation_url.trim() ? { validation_url: checks.validation_url.trim() } : {}),
    ...(sets.length ? { unique_with: sets } : {}),
  };
}

/** A bound or length as typed: a number when it reads as one, else the text (the API says what is wrong with it). */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const boundFromText = (text: string): string | number => (NUMBER_TEXT.test(text.trim()) ? Number(text.trim()) : text.trim());
const textFromBound = (v: unknown): string => (typeof v === 'number' ? String(v) : str(v));

/** Lines of `locale: text` (a description per review language). */
const parseDescriptions = (text: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0 && line.slice(at + 1).trim()) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
};

/** `de=Platin, fr=Platine` (a picklist value's label per review language). */
const parseLabels = (text: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(at + 1).trim()) out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
};

export const isDateType = (dataType: string): boolean => dataType === 'date' || dataType === 'datetime';
export const isNumberType = (dataType: string): boolean => dataType === 'number' || dataType === 'integer';

/** The transformations the form offers, in the order it lists them. */
export const TRANSFORMATIONS = [...SIMPLE_TRANSFORMATIONS, 'date_format'] as const;
export type TransformationName = (typeof TRANSFORMATIONS)[number];

/**
 * Data types whose values are read in any letter case and written in the type's own form (a number, true or false,
 * a date, E.164, a country code), or never have letters: upper and lower case change nothing there but the text kept
 * as read, or break a month's name. Any other type (string, text, email, url, one the service does not know, which it
 * takes as text) is text a case rule may mean to change.
 */
const CASE_BLIND_TYPES: ReadonlySet<string> = new Set(['number', 'integer', 'boolean', 'date', 'datetime', 'phone', 'country']);

/** A picklist's allowed values as the form holds them, one per line (`value | label | labels`), each line's parts trimmed. */
const allowedValueLines = (text: string): string[][] =>
  text
    .split('\n')
    .map((line) => line.split('|').map((p) => p.trim()))
    .filter((p) => p[0]);

/**
 * Why a transformation does not suit a field, or null when it does (the form offers it then). `type`: not for a field
 * of its data_type (date_format rewrites dates, so only date and datetime fields; upper and lower case not for the
 * types above). `picklist`: a case rule on a picklist with an allowed value not in that case, which no value changed
 * to it could ever match (`value` names the first). Trimming suits every field. The API takes any of them on any
 * type: this is the form's advice, never a reason to drop one a schema has.
 */
export function transformationMisfit(
  name: TransformationName,
  row: Pick<FieldRow, 'data_type' | 'allowed_values'>,
): { reason: 'type' } | { reason: 'picklist'; value: string } | null {
  if (name === 'trim_whitespace') return null;
  if (name === 'date_format') return isDateType(row.data_type) ? null : { reason: 'type' };
  if (CASE_BLIND_TYPES.has(row.data_type)) return { reason: 'type' };
  if (row.data_type !== 'enum') return null;
  const inCase = (v: string) => (name === 'uppercase' ? v.toUpperCase() : v.toLowerCase());
  const other = allowedValueLines(row.allowed_values)
    .map(([value]) => value)
    .find((v) => inCase(v) !== v);
  return other === undefined ? null : { reason: 'picklist', value: other };
}

/**
 * Whether a field has both upper and lower case on. The service applies them in that order (compileTextRules in
 * libs/domain/src/fields/transformations.ts), so the values end in lower case: the form says so at both checkboxes.
 */
export const bothCasesOn = (row: Pick<FieldRow, 'transformations'>): boolean =>
  row.transformations.uppercase && row.transformations.lowercase;

/** Whether a field has a transformation turned on (the form shows it then, whether or not it suits). */
export const isTransformationOn = (name: TransformationName, row: Pick<FieldRow, 'transformations' | 'date_format'>): boolean =>
  name === 'date_format' ? row.date_format.enabled : row.transformations[name];

const isPlainObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What the JSON view holds, when it can go into the form: a whole schema (`fields` an object of fields, with
 * its name and options), or that object of fields alone. Else why not: the text is not JSON, or JSON of
 * another shape (a list, a string, `fields` as an array), which would have emptied the form.
 */
export function schemaFromJson(
  text: string,
): { name: string | null; fields: Json; whole: boolean; schema: Json } | 'not json' | 'not a schema' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not json';
  }
  if (!isPlainObject(parsed)) return 'not a schema';
  const whole = parsed.fields !== undefined;
  const fields = whole ? parsed.fields : parsed;
  if (!isPlainObject(fields) || Object.keys(fields).length === 0 || !Object.values(fields).every(isPlainObject)) return 'not a schema';
  return { name: typeof parsed.name === 'string' ? parsed.name : null, fields, whole, schema: parsed };
}

/**
 * A member of pasted JSON whose value is of a type the form cannot hold: read anyway, it would be changed without a
 * word (`"is_required": "yes"` became false, `allowed_values` that are no list became none). `field` is the field's
 * name (null for a member of the schema itself), `member` the member's path in it (`allowed_values[2]`,
 * `transformations.trim_whitespace.enabled`), `expected` what it must be (a word the page says in full), `got` the
 * value as written (cut short).
 */
export interface TypeProblem {
  field: string | null;
  member: string;
  expected: 'boolean' | 'text' | 'object' | 'number_or_text' | 'text_map' | 'value_list' | 'value_entry' | 'field_set' | 'field_set_list';
  got: string;
}

const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
};
const isText = (v: unknown): boolean => typeof v === 'string';
/** An optional text member: absent, null (the API writes an unset `label` or `format` as null) or a string. */
const isOptionalText = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';

/** What of a field definition the form would read otherwise than it is written (nothing: it can go into the form). */
function fieldTypeProblems(name: string, def: Json): TypeProblem[] {
  const problems: TypeProblem[] = [];
  const wrong = (member: string, expected: TypeProblem['expected'], got: unknown) =>
    problems.push({ field: name, member, expected, got: shown(got) });
  for (const member of ['description', 'label', 'format', 'default_region', 'country_format', 'pattern'] as const)
    if (!isOptionalText(def[member])) wrong(member, 'text', def[member]);
  if (def.data_type !== undefined && !isText(def.data_type)) wrong('data_type', 'text', def.data_type);
  for (const member of ['is_required', 'unique'] as const)
    if (def[member] !== undefined && typeof def[member] !== 'boolean') wrong(member, 'boolean', def[member]);
  for (const member of ['min', 'max', 'min_length', 'max_length'] as const) {
    const v = def[member];
    if (v !== undefined && v !== null && typeof v !== 'number' && typeof v !== 'string') wrong(member, 'number_or_text', v);
  }
  if (def.descriptions !== undefined && def.descriptions !== null) {
    if (!isPlainObject(def.descriptions)) wrong('descriptions', 'text_map', def.descriptions);
    else for (const [locale, text] of Object.entries(def.descriptions)) if (!isText(text)) wrong(`descriptions.${locale}`, 'text', text);
  }
  if (def.transformations !== undefined && def.transformations !== null) {
    if (!isPlainObject(def.transformations)) wrong('transformations', 'object', def.transformations);
    else
      for (const tr of [...SIMPLE_TRANSFORMATIONS, 'date_format'] as const) {
        const one = def.transformations[tr];
        if (one === undefined || one === null) continue;
        if (!isPlainObject(one)) {
          wrong(`transformations.${tr}`, 'object', one);
          continue;
        }
        if (one.enabled !== undefined && typeof one.enabled !== 'boolean') wrong(`transformations.${tr}.enabled`, 'boolean', one.enabled);
        if (tr === 'date_format')
          for (const end of ['from', 'to'] as const)
            if (!isOptionalText(one[end])) wrong(`transformations.date_format.${end}`, 'text', one[end]);
      }
  }
  if (def.allowed_values !== undefined && def.allowed_values !== null) {
    if (!Array.isArray(def.allowed_values)) wrong('allowed_values', 'value_list', def.allowed_values);
    else
      def.allowed_values.forEach((entry: unknown, i) => {
        const at = `allowed_values[${i + 1}]`;
        if (typeof entry === 'string') return;
        if (!isPlainObject(entry) || !isText(entry.value)) return wrong(at, 'value_entry', entry);
        if (!isOptionalText(entry.label)) wrong(`${at}.label`, 'text', entry.label);
        if (entry.labels !== undefined && entry.labels !== null) {
          if (!isPlainObject(entry.labels)) wrong(`${at}.labels`, 'text_map', entry.labels);
          else for (const [locale, text] of Object.entries(entry.labels)) if (!isText(text)) wrong(`${at}.labels.${locale}`, 'text', text);
        }
      });
  }
  if (def.number_format !== undefined && def.number_format !== null) {
    const nf = def.number_format;
    if (!isPlainObject(nf)) wrong('number_format', 'object', nf);
    else {
      for (const member of ['locale', 'decimal', 'group'] as const)
        if (!isOptionalText(nf[member])) wrong(`number_format.${member}`, 'text', nf[member]);
      for (const member of ['currency', 'percent'] as const)
        if (nf[member] !== undefined && nf[member] !== null && typeof nf[member] !== 'boolean')
          wrong(`number_format.${member}`, 'boolean', nf[member]);
    }
  }
  return problems;
}

/**
 * The members of pasted JSON (schemaFromJson's) that the form would have to change to hold: the fields' and, for a
 * whole schema, its `name`, `validation_url` and `unique_with`. Empty when it can go into the form as it is written.
 */
export function jsonTypeProblems(read: { fields: Json; whole: boolean; schema: Json }): TypeProblem[] {
  const problems: TypeProblem[] = [];
  if (read.whole) {
    const s = read.schema;
    if (!isOptionalText(s.name)) problems.push({ field: null, member: 'name', expected: 'text', got: shown(s.name) });
    if (!isOptionalText(s.validation_url))
      problems.push({ field: null, member: 'validation_url', expected: 'text', got: shown(s.validation_url) });
    const sets = s.unique_with;
    if (sets !== undefined && sets !== null) {
      if (!Array.isArray(sets)) problems.push({ field: null, member: 'unique_with', expected: 'field_set_list', got: shown(sets) });
      else
        sets.forEach((set: unknown, i) => {
          if (!Array.isArray(set) || !set.every(isText))
            problems.push({ field: null, member: `unique_with[${i + 1}]`, expected: 'field_set', got: shown(set) });
        });
    }
  }
  for (const [name, def] of Object.entries(read.fields)) problems.push(...fieldTypeProblems(name, obj(def)));
  return problems;
}

/** The form's rows from a schema's `fields` (what the JSON view or the API gave). */
export function rowsFromFields(fields: unknown): FieldRow[] {
  return Object.entries(obj(fields)).map(([name, raw]) => {
    const def = obj(raw);
    const tr = obj(def.transformations);
    const df = obj(tr.date_format);
    const nf = obj(def.number_format);
    return {
      ...emptyField(),
      name,
      description: str(def.description),
      descriptions: Object.entries(obj(def.descriptions))
        .map(([l, d]) => `${l}: ${str(d)}`)
        .join('\n'),
      data_type: str(def.data_type) || 'string',
      is_required: def.is_required === true,
      label: str(def.label),
      format: str(def.format),
      transformations: {
        trim_whitespace: obj(tr.trim_whitespace).enabled === true,
        uppercase: obj(tr.uppercase).enabled === true,
        lowercase: obj(tr.lowercase).enabled === true,
      },
      date_format: { enabled: df.enabled === true, from: str(df.from), to: str(df.to) },
      allowed_values: (Array.isArray(def.allowed_values) ? def.allowed_values : [])
        .map((v) => {
          // A value alone ("gold") is a value without a label.
          const value = typeof v === 'string' ? { value: v } : obj(v);
          const labels = Object.entries(obj(value.labels)).map(([l, s]) => `${l}=${str(s)}`);
          return [str(value.value), str(value.label), labels.join(', ')].join(' | ').replace(/( \| )+$/, '');
        })
        .join('\n'),
      number_format: {
        locale: str(nf.locale),
        decimal: str(nf.decimal),
        group: str(nf.group),
        currency: nf.currency === true,
        percent: nf.percent === true,
      },
      default_region: str(def.default_region),
      country_format: str(def.country_format),
      pattern: str(def.pattern),
      min: textFromBound(def.min),
      max: textFromBound(def.max),
      min_length: textFromBound(def.min_length),
      max_length: textFromBound(def.max_length),
      unique: def.unique === true,
      other: without(def, FIELD_MEMBERS),
    };
  });
}

/** The API's `fields` from the form's rows (in their order; a field's options only where they mean something). */
export function fieldsFromRows(rows: FieldRow[]): Json {
  const fields: Json = {};
  for (const row of rows) {
    // The members the form does not know first, so that the form's own inputs win.
    const def: Json = { ...row.other, description: row.description, data_type: row.data_type, is_required: row.is_required };
    if (row.label.trim()) def.label = row.label.trim();
    if (row.format.trim() && (row.data_type === 'date' || row.data_type === 'datetime')) def.format = row.format.trim();
    const descriptions = parseDescriptions(row.descriptions);
    if (Object.keys(descriptions).length) def.descriptions = descriptions;
    const transformations: Json = {};
    for (const name of SIMPLE_TRANSFORMATIONS) if (row.transformations[name]) transformations[name] = { enabled: true };
    if (row.date_format.enabled)
      transformations.date_format = {
        enabled: true,
        to: row.date_format.to.trim(),
        ...(row.date_format.from.trim() ? { from: row.date_format.from.trim() } : {}),
      };
    if (Object.keys(transformations).length) def.transformations = transformations;
    if (row.data_type === 'enum') {
      def.allowed_values = allowedValueLines(row.allowed_values).map(([value, label, labels]) => ({
        value,
        ...(label ? { label } : {}),
        ...(labels ? { labels: parseLabels(labels) } : {}),
      }));
    }
    const nf = row.number_format;
    if (
      (row.data_type === 'number' || row.data_type === 'integer') &&
      (nf.locale.trim() || nf.decimal || nf.group || nf.currency || nf.percent)
    )
      def.number_format = {
        ...(nf.locale.trim() ? { locale: nf.locale.trim() } : {}),
        ...(nf.decimal ? { decimal: nf.decimal } : {}),
        ...(nf.group ? { group: nf.group } : {}),
        ...(nf.currency ? { currency: true } : {}),
        ...(nf.percent ? { percent: true } : {}),
      };
    if (row.data_type === 'phone' && row.default_region.trim()) def.default_region = row.default_region.trim();
    if (row.data_type === 'country' && row.country_format) def.country_format = row.country_format;
    // Sent on any data type: the API says which ones a check does not apply to, beside its input.
    if (row.pattern) def.pattern = row.pattern;
    for (const bound of ['min', 'max', 'min_length', 'max_length'] as const) {
      if (!row[bound].trim()) continue;
      // A date field's bounds are ISO dates: "2024" stays text rather than becoming a number.
      def[bound] = bound.endsWith('length') || !isDateType(row.data_type) ? boundFromText(row[bound]) : row[bound].trim();
    }
    if (row.unique) def.unique = true;
    // Defined, not assigned: a field named "__proto__" would set the object's prototype and vanish from
    // what is sent, the page saying "saved"; sent, the API says why the name is refused.
    Object.defineProperty(fields, row.name, { value: def, enumerable: true, writable: true, configurable: true });
  }
  return fields;
}
