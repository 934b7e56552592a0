import { Component } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, type ApiFailure } from '../api';
import { personalCheckMessage, personalSetMessage, personalTransformationMessage } from '../check-messages';
import { has, t } from '../i18n';
import { navigate, useLeaveWarning } from '../router';
import {
  checksFromSchema,
  COUNTRY_FORMATS,
  DATA_TYPES,
  emptyField,
  type FieldRow,
  fieldsFromRows,
  isDateType,
  isNumberType,
  jsonTypeProblems,
  rowsFromFields,
  type SchemaChecks,
  schemaFromChecks,
  schemaFromJson,
  schemaOptions,
  SIMPLE_TRANSFORMATIONS,
  isTransformationOn,
  type TransformationName,
  transformationMisfit,
  bothCasesOn,
  type TypeProblem,
} from '../schema-model';
import { canChange, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { useRemovalFocus } from '../use-removal-focus';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { errorProps, FieldError } from './field-error';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';
import { TrySchema } from './try-schema';

/** The id of an input (or button) of a field's part of the form: `what` names it, e.g. `name`, `remove`. */
const fieldId = (key: number, what: string): string => `f${key}-${what}`;

interface Schema {
  id: string;
  name: string;
  fields: Record<string, unknown>;
}

/** A target schema: a form for every field option, the same rules and messages as the admin API, and its JSON. */
export function SchemaEditor({ id, session }: { id: string | null; session: SessionView }) {
  const editable = canChange(session);
  const [name, setName] = useState('');
  const [rows, setRows] = useState<FieldRow[]>(() => (id ? [] : [emptyField()]));
  // The schema's other members (options the form has no input for): sent back as they came, so a save loses nothing.
  const [options, setOptions] = useState<Record<string, unknown>>({});
  const [checks, setChecks] = useState<SchemaChecks>({ validation_url: '', unique_with: '' });
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, errors);
  const [json, setJson] = useState<string | null>(null);
  // Why the JSON box's text was not applied: members of a type the form would have changed, said under the box.
  const [jsonErrors, setJsonErrors] = useState<string[]>([]);
  // Until the schema has come, no form: whatever was typed into a blank one would be overwritten when it did.
  const [loaded, setLoaded] = useState(id === null);
  const [loadError, setLoadError] = useState<ApiFailure | null>(null);
  const [loadTick, setLoadTick] = useState(0);
  // The schema this page has just created: the address now names it, and it is already in the form.
  const created = useRef<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const fieldFocus = useRemovalFocus(rows, (r) => fieldId(r.key, 'remove'));
  // A field just added: its name takes the focus once it is drawn, as the name is what is filled in first.
  const added = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (added.current === null) return;
    document.getElementById(fieldId(added.current, 'name'))?.focus();
    added.current = null;
  }, [rows]);
  const addField = () => {
    const field = emptyField();
    added.current = field.key;
    setRows((rs) => [...rs, field]);
  };
  const removeField = (row: FieldRow) => {
    fieldFocus.removed(row);
    setRows((rs) => rs.filter((r) => r.key !== row.key));
  };

  useEffect(() => {
    if (!id || id === created.current) return;
    let live = true;
    setLoadError(null);
    api<{ data: Schema }>('GET', `/schemas/${id}`)
      .then(({ data }) => {
        if (!live) return;
        savedBody.current = null; // what this schema holds becomes what the form is compared with
        setName(data.name);
        setRows(rowsFromFields(data.fields));
        setOptions(schemaOptions(data));
        setChecks(checksFromSchema(data));
        setLoaded(true);
      })
      .catch((err: ApiFailure) => live && setLoadError(err));
    return () => {
      live = false;
    };
  }, [id, loadTick]);

  const update = (key: number, patch: Partial<FieldRow>) => setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const body = () => ({ ...options, name, fields: fieldsFromRows(rows), ...schemaFromChecks(checks) });
  // Drawn once a render for the JSON box and its copy button (each was a JSON.stringify of every field).
  const formJson = JSON.stringify(body(), null, 2);
  const shownJson = json ?? formJson;
  // What the form held when it was loaded (or blank) or last saved: leaving it with anything else, or with JSON typed
  // and not applied, asks first (a schema form can be long).
  const savedBody = useRef<string | null>(null);
  const sendable = loaded ? formJson : null;
  if (savedBody.current === null) savedBody.current = sendable;
  const unsaved = sendable !== null && (sendable !== savedBody.current || json !== null);
  useLeaveWarning(unsaved ? t('schema.unsaved') : null);

  const send = useAction(async () => {
    setErrors({});
    clearStatus();
    // Two fields of one name are one member of the JSON the API gets: the later would replace the earlier unsaid.
    // JSON pasted and not applied is not in what is sent: a refusal says so too, or the person mends the form's
    // fields believing their JSON is in it.
    const notApplied = json === null ? '' : ` ${t('schema.json_not_applied')}`;
    const repeated = repeatedNames(rows);
    if (repeated.length > 0) {
      setErrors(Object.fromEntries(repeated.map((n) => [`fields.${n}`, [t('schema.duplicate_name', { name: n })]])));
      announce(t('schema.invalid', { count: rows.filter((row) => repeated.includes(row.name)).length }) + notApplied, 'error');
      return;
    }
    try {
      const sent = body();
      const saved = await api<{ data: Schema }>(id ? 'PUT' : 'POST', id ? `/schemas/${id}` : '/schemas', sent);
      savedBody.current = JSON.stringify(sent, null, 2);
      // Edits left in the JSON box were not applied to the form, so they are not what was saved: say so.
      announce(t(json === null ? 'schema.saved' : 'schema.saved_json_left', { name: saved.data.name }));
      if (!id) {
        created.current = saved.data.id;
        navigate(`/console/schemas/${saved.data.id}`, true);
      }
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      const places = placesWithErrors(failure.fields ?? {}, rows);
      announce((places > 0 ? t('schema.invalid', { count: places }) : failureText(failure)) + notApplied, 'error');
    }
  });
  const save = (event: Event) => {
    event.preventDefault();
    void send.run();
  };

  const applyJson = () => {
    if (json === null) return;
    const read = schemaFromJson(json);
    if (typeof read === 'string') {
      // The form is left as it was: JSON of another shape would have emptied it. Said under the box too, which is
      // marked invalid and gets the keyboard, as for members of the wrong type.
      const message = t(read === 'not json' ? 'schema.json_invalid' : 'schema.json_not_schema');
      setJsonErrors([message]);
      announce(message, 'error');
      document.getElementById('schema-json')?.focus();
      return;
    }
    // A member of the wrong type ("is_required": "yes") is refused, not read as something else the form can hold.
    const problems = jsonTypeProblems(read);
    if (problems.length > 0) {
      setJsonErrors(problems.map(typeProblemText));
      announce(t('schema.json_wrong_types', { count: problems.length }), 'error');
      document.getElementById('schema-json')?.focus();
      return;
    }
    setJsonErrors([]);
    if (read.name !== null) setName(read.name);
    setRows(rowsFromFields(read.fields));
    // A whole schema brings its options; a bare map of fields leaves them as they were.
    if (read.whole) {
      setOptions(schemaOptions(read.schema));
      setChecks(checksFromSchema(read.schema));
    }
    setJson(null);
    announce(t('schema.json_applied'));
  };

  const remove = async () => {
    setConfirmDelete(false);
    try {
      await api('DELETE', `/schemas/${id}`);
      announce(t('schema.deleted', { name }));
      navigate('/console/schemas');
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };

  if (loadError?.status === 404)
    return (
      <section>
        <PageTitle text={t('schema.title_missing')} />
        <p class="notice error">{loadError.message}</p>
        <a href="/console/schemas">{t('schema.back')}</a>
      </section>
    );
  // Any other failure (the network, a busy service) is not "not found": it says what happened, and offers to try again.
  if (!loaded)
    return (
      <section>
        <p>
          <a href="/console/schemas">{t('schema.back')}</a>
        </p>
        <PageTitle text={t('schema.title_edit', { name: '…' })} />
        <LoadState loading={!loadError} error={loadError} onRetry={() => setLoadTick((n) => n + 1)} />
      </section>
    );
  // Messages about kept schema options (`unique_with.0`, …) have no input of their own: shown with the fields' general ones.
  const optionErrors = Object.entries(errors)
    .filter(([key]) => Object.hasOwn(options, key.split('.')[0]))
    .flatMap(([, messages]) => messages);
  const generalErrors = [...(errors.fields ?? []), ...optionErrors];
  // A viewer creates nothing: the new schema's form would be greyed out with nothing to say why.
  if (!id && !editable)
    return (
      <section>
        <PageTitle text={t('schema.title_new')} />
        <p class="notice">{t('schema.viewer_new')}</p>
        <a href="/console/schemas">{t('schema.back')}</a>
      </section>
    );
  return (
    <section>
      <p>
        <a href="/console/schemas">{t('schema.back')}</a>
      </p>
      <PageTitle text={id ? t('schema.title_edit', { name: name || '…' }) : t('schema.title_new')} />
      {!editable && <p class="notice">{t('schema.viewer_read_only')}</p>}
      {id && (
        <p class="muted">
          {t('schema.id')} <code>{id}</code>
        </p>
      )}
      <form ref={formRef} onSubmit={save} noValidate>
        <fieldset disabled={!editable}>
          <label for="schema-name">{t('schema.name')}</label>
          <input
            id="schema-name"
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
            required
            {...errorProps('schema-name-error', errors.name)}
          />
          <FieldError id="schema-name-error" messages={errors.name} />
          <h2 ref={fieldFocus.heading} tabIndex={-1}>
            {t('schema.fields')}
          </h2>
          <FieldError id="schema-fields-error" messages={generalErrors} />
          {rows.map((row, i) => (
            <FieldCard
              key={row.key}
              row={row}
              index={i}
              errors={fieldErrors(errors, row)}
              onChange={(patch) => update(row.key, patch)}
              onRemove={rows.length > 1 ? () => removeField(row) : null}
            />
          ))}
          <button type="button" class="secondary" onClick={addField}>
            {t('schema.add_field')}
          </button>
          <SchemaChecksEditor checks={checks} errors={errors} onChange={(patch) => setChecks((c) => ({ ...c, ...patch }))} />
        </fieldset>
        {editable && (
          <div class="actions">
            <button type="submit" aria-disabled={send.busy || undefined}>
              {id ? t('schema.save') : t('schema.create')}
            </button>
            {id && (
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                {t('schema.delete')}
              </button>
            )}
          </div>
        )}
      </form>
      <h2>{t('schema.json')}</h2>
      <p class="muted">{editable ? t('schema.json_intro') : t('schema.json_intro_read_only')}</p>
      <label for="schema-json">{t('schema.json_label')}</label>
      <textarea
        id="schema-json"
        class="code"
        rows={12}
        value={shownJson}
        onInput={(e) => {
          setJson((e.target as HTMLTextAreaElement).value);
          setJsonErrors([]);
        }}
        readOnly={!editable}
        {...errorProps('schema-json-error', jsonErrors)}
      />
      {jsonErrors.length > 0 && (
        <ul id="schema-json-error" class="field-error">
          {jsonErrors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
      <div class="actions">
        <CopyButton text={shownJson} label={t('schema.copy_json')} />
        {editable && (
          <button type="button" class="secondary" onClick={applyJson} aria-disabled={json === null || undefined}>
            {t('schema.apply_json')}
          </button>
        )}
      </div>
      {id && editable && <TrySchema schemaId={id} />}
      <ConfirmDialog
        open={confirmDelete}
        title={t('schema.delete_title', { name })}
        body={t('schema.delete_body')}
        confirm={t('schema.delete_confirm')}
        onConfirm={remove}
        onCancel={() => setConfirmDelete(false)}
      />
    </section>
  );
}

/** The field names given to more than one field (blank ones aside: the API names those). */
function repeatedNames(rows: readonly FieldRow[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { name } of rows) {
    if (name === '') continue;
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  return [...repeated];
}

/**
 * How many parts of the form the API's messages are about: each field of the schema once however many of its options
 * are wrong, and the schema's own options (its name, unique_with) each once. Said with the refusal, so a long form's
 * reader knows how many places to look for, not only the first one the keyboard is taken to.
 */
function placesWithErrors(errors: Record<string, string[]>, rows: FieldRow[]): number {
  const places = new Set<string>();
  for (const key of Object.keys(errors)) {
    // The longest name that owns the key: field names may hold dots ("a" and "a.b" are two fields).
    const owner = rows
      .map((row) => `fields.${row.name}`)
      .filter((prefix) => key === prefix || key.startsWith(`${prefix}.`))
      .sort((a, b) => b.length - a.length)[0];
    places.add(owner ?? key);
  }
  return places.size;
}

/**
 * The API's messages about one field, by option (`fields.<name>.<option>`). Those about the field
 * itself (`fields.<name>`) are about its name, as the form always sends a definition object: they
 * go beside the name's input, which they mark invalid and describe.
 */
function fieldErrors(errors: Record<string, string[]>, row: FieldRow): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const prefix = `fields.${row.name}`;
  for (const [key, messages] of Object.entries(errors)) {
    if (key === prefix) out.name = [...(out.name ?? []), ...messages];
    else if (key.startsWith(`${prefix}.`)) {
      const option = key.slice(prefix.length + 1).split('.')[0];
      // The checks' messages in the words of the form's inputs, not the API's member names (check-messages.ts).
      const said = CHECK_OPTIONS.includes(option as (typeof CHECK_OPTIONS)[number])
        ? messages.map((m) => personalCheckMessage(m, isDateType(row.data_type), t))
        : messages;
      if (option === 'transformations')
        // A "Rewrite dates" pattern's message goes beside that pattern's input, which it marks invalid.
        for (const { input, text } of messages.map((m) => personalTransformationMessage(m, t))) {
          const at = input ?? option;
          out[at] = [...(out[at] ?? []), text];
        }
      else out[option] = [...(out[option] ?? []), ...said];
    }
  }
  return out;
}

/** A member of pasted JSON of the wrong type, said with the field it is in and what it must be. */
const typeProblemText = (p: TypeProblem): string =>
  p.field === null
    ? t('schema.json_type_schema', { member: p.member, expected: t(`schema.json_expected.${p.expected}`), got: p.got })
    : t('schema.json_type_field', { field: p.field, member: p.member, expected: t(`schema.json_expected.${p.expected}`), got: p.got });

/** One labelled text box (or text area) of the editor, with its hint and the API's messages about it. */
function TextOption({
  id,
  label,
  hint,
  value,
  onValue,
  errors,
  multiline = false,
  numeric = false,
  spellcheck,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  errors?: string[];
  multiline?: boolean;
  numeric?: boolean;
  spellcheck?: boolean;
}) {
  const described = hint ? { 'aria-describedby': `${id}-hint` } : {};
  return (
    <div>
      <label for={id}>{label}</label>
      {multiline ? (
        <textarea
          id={id}
          rows={3}
          value={value}
          onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)}
          {...described}
          {...errorProps(`${id}-error`, errors)}
        />
      ) : (
        <input
          id={id}
          value={value}
          inputMode={numeric ? 'numeric' : undefined}
          spellcheck={spellcheck}
          onInput={(e) => onValue((e.target as HTMLInputElement).value)}
          {...described}
          {...errorProps(`${id}-error`, errors)}
        />
      )}
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} messages={errors} />
    </div>
  );
}

type FieldEditorProps = Parameters<typeof FieldEditor>[0];

/**
 * A field's editor, drawn again only when its own row, place, errors or removability change: each key
 * typed in one field drew every field's card again, 0.3 s a key at 1,000 fields. Its handlers read the
 * props when called (Preact updates a skipped component's props), so a removal sees the current list.
 */
class FieldCard extends Component<FieldEditorProps> {
  private readonly change = (patch: Partial<FieldRow>) => this.props.onChange(patch);
  private readonly remove = () => this.props.onRemove?.();

  shouldComponentUpdate(next: FieldEditorProps): boolean {
    const now = this.props;
    return (
      next.row !== now.row ||
      next.index !== now.index ||
      (next.onRemove === null) !== (now.onRemove === null) ||
      JSON.stringify(next.errors) !== JSON.stringify(now.errors)
    );
  }

  render() {
    const { onRemove, ...rest } = this.props;
    return <FieldEditor {...rest} onChange={this.change} onRemove={onRemove ? this.remove : null} />;
  }
}

function FieldEditor({
  row,
  index,
  errors,
  onChange,
  onRemove,
}: {
  row: FieldRow;
  index: number;
  errors: Record<string, string[]>;
  onChange: (patch: Partial<FieldRow>) => void;
  onRemove: (() => void) | null;
}) {
  const id = (what: string) => fieldId(row.key, what);
  const text = (what: keyof FieldRow, label: string, hint?: string, multiline = false) => (
    <TextOption
      id={id(what)}
      label={label}
      hint={hint}
      value={row[what] as string}
      onValue={(value) => onChange({ [what]: value })}
      errors={errors[what]}
      multiline={multiline}
    />
  );
  const isDate = row.data_type === 'date' || row.data_type === 'datetime';
  // A transformation is offered where it suits the data type; one turned on where it does not stays shown, with a note
  // saying so (a saved schema's setting, or one the type was changed under), and stays shown once unticked, keeping
  // the focus it has, until the data type changes.
  const unsuitedShown = useRef<{ dataType: string; names: Set<TransformationName> }>({ dataType: row.data_type, names: new Set() });
  if (unsuitedShown.current.dataType !== row.data_type) unsuitedShown.current = { dataType: row.data_type, names: new Set() };
  const misfitText = (name: TransformationName): string | null => {
    const misfit = transformationMisfit(name, row);
    if (!misfit) return null;
    if (misfit.reason === 'picklist') return t('transformation.unsuited_picklist', { value: misfit.value });
    const type = typeLabel(row.data_type);
    return t(name === 'date_format' ? 'transformation.unsuited_date_format' : 'transformation.unsuited_case', { type });
  };
  // Upper and lower case both on: lower case is applied last, so it wins; a note at both checkboxes says so.
  const casesNote = bothCasesOn(row) ? id('cases-both') : null;
  const shown = (name: TransformationName): boolean => {
    if (!transformationMisfit(name, row)) return true;
    if (isTransformationOn(name, row)) unsuitedShown.current.names.add(name);
    return unsuitedShown.current.names.has(name);
  };
  return (
    <fieldset class="field-card">
      <legend>{t('field.legend', { n: index + 1, name: row.name || t('field.unnamed') })}</legend>
      <FieldError id={id('error')} messages={errors._} />
      <div class="grid">
        {text('name', t('field.name'), t('field.name_hint'))}
        <div>
          <label for={id('data_type')}>{t('field.data_type')}</label>
          <select
            id={id('data_type')}
            value={row.data_type}
            onChange={(e) => onChange({ data_type: (e.target as HTMLSelectElement).value })}
            {...errorProps(id('data_type-error'), errors.data_type)}
          >
            {[...new Set([...DATA_TYPES, row.data_type])].map((d) => (
              <option key={d} value={d}>
                {typeLabel(d)}
              </option>
            ))}
          </select>
          <FieldError id={id('data_type-error')} messages={errors.data_type} />
        </div>
        {text('description', t('field.description'))}
        {text('label', t('field.label'), t('field.label_hint'))}
      </div>
      <div class="check">
        <input
          id={id('required')}
          type="checkbox"
          checked={row.is_required}
          onChange={(e) => onChange({ is_required: (e.target as HTMLInputElement).checked })}
        />
        <label for={id('required')}>{t('field.required')}</label>
      </div>
      {isDate && text('format', t('field.format'), t('field.format_hint'))}
      {row.data_type === 'enum' && text('allowed_values', t('field.allowed_values'), t('field.allowed_values_hint'), true)}
      {(row.data_type === 'number' || row.data_type === 'integer') && (
        <NumberFormatEditor row={row} id={id} errors={errors.number_format} onChange={onChange} />
      )}
      {row.data_type === 'phone' && text('default_region', t('field.default_region'), t('field.default_region_hint'))}
      {row.data_type === 'country' && (
        <div>
          <label for={id('country_format')}>{t('field.country_format')}</label>
          <select
            id={id('country_format')}
            value={row.country_format}
            onChange={(e) => onChange({ country_format: (e.target as HTMLSelectElement).value })}
            {...errorProps(id('country_format-error'), errors.country_format)}
          >
            <option value="">{t('field.country_format_default')}</option>
            {COUNTRY_FORMATS.map((f) => (
              <option key={f} value={f}>
                {t(`country_format.${f}`)}
              </option>
            ))}
          </select>
          <FieldError id={id('country_format-error')} messages={errors.country_format} />
        </div>
      )}
      {text('descriptions', t('field.descriptions'), t('field.descriptions_hint'), true)}
      <FieldChecks row={row} id={id} errors={errors} onChange={onChange} />
      <fieldset class="transformations">
        <legend>{t('field.transformations')}</legend>
        {SIMPLE_TRANSFORMATIONS.filter((name) => shown(name)).map((name) => (
          <TransformationCheck
            key={name}
            id={id(name)}
            name={name}
            checked={row.transformations[name]}
            misfit={misfitText(name)}
            note={name === 'uppercase' || name === 'lowercase' ? casesNote : null}
            onCheck={(on) => onChange({ transformations: { ...row.transformations, [name]: on } })}
          />
        ))}
        {casesNote && (
          <p id={casesNote} class="hint">
            {t('transformation.cases_both')}
          </p>
        )}
        {shown('date_format') && (
          <TransformationCheck
            id={id('date_format')}
            name="date_format"
            checked={row.date_format.enabled}
            misfit={misfitText('date_format')}
            onCheck={(on) => onChange({ date_format: { ...row.date_format, enabled: on } })}
          />
        )}
        {row.date_format.enabled && (
          <div class="grid">
            <div>
              <label for={id('df-from')}>{t('transformation.from')}</label>
              <input
                id={id('df-from')}
                value={row.date_format.from}
                onInput={(e) => onChange({ date_format: { ...row.date_format, from: (e.target as HTMLInputElement).value } })}
                {...errorProps(id('df-from-error'), errors['df-from'])}
              />
              <FieldError id={id('df-from-error')} messages={errors['df-from']} />
            </div>
            <div>
              <label for={id('df-to')}>{t('transformation.to')}</label>
              <input
                id={id('df-to')}
                value={row.date_format.to}
                onInput={(e) => onChange({ date_format: { ...row.date_format, to: (e.target as HTMLInputElement).value } })}
                {...errorProps(id('df-to-error'), errors['df-to'])}
              />
              <FieldError id={id('df-to-error')} messages={errors['df-to']} />
            </div>
          </div>
        )}
        <FieldError id={id('transformations-error')} messages={errors.transformations} />
      </fieldset>
      <FieldError
        id={id('other-error')}
        messages={[
          ...(errors.allowed_values_extra ?? []),
          ...(errors.is_required ?? []),
          // Options kept from the API or the JSON view, which have no input here: their messages still show.
          ...Object.keys(row.other).flatMap((option) => errors[option] ?? []),
        ]}
      />
      {onRemove && (
        <button type="button" id={id('remove')} class="secondary" onClick={onRemove}>
          {t('field.remove', { name: row.name || t('field.unnamed') })}
        </button>
      )}
    </fieldset>
  );
}

/** A data type in the form's words; one the catalog has no words for (the service does not know it) as written. */
const typeLabel = (dataType: string): string => (has(`type.${dataType}`) ? t(`type.${dataType}`) : dataType);

/**
 * A transformation's checkbox; where it does not suit the field, a note beside it says why (it describes the checkbox).
 * `note`: the id of a note drawn after it that describes it too (the one of upper and lower case both on).
 */
function TransformationCheck({
  id,
  name,
  checked,
  misfit,
  note = null,
  onCheck,
}: {
  id: string;
  name: TransformationName;
  checked: boolean;
  misfit: string | null;
  note?: string | null;
  onCheck: (on: boolean) => void;
}) {
  const describedBy = [misfit ? `${id}-unsuited` : null, note].filter((n) => n !== null).join(' ');
  return (
    <>
      <div class="check">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          onChange={(e) => onCheck((e.target as HTMLInputElement).checked)}
          aria-describedby={describedBy || undefined}
        />
        <label for={id}>{t(`transformation.${name}`)}</label>
      </div>
      {misfit && (
        <p id={`${id}-unsuited`} class="hint unsuited">
          {misfit}
        </p>
      )}
    </>
  );
}

/** A number field's number_format: a locale or its own separators, and whether currencies and percent signs are allowed. */
function NumberFormatEditor({
  row,
  id,
  errors,
  onChange,
}: {
  row: FieldRow;
  id: (what: string) => string;
  errors: string[] | undefined;
  onChange: (patch: Partial<FieldRow>) => void;
}) {
  const nf = row.number_format;
  const set = (patch: Partial<FieldRow['number_format']>) => onChange({ number_format: { ...nf, ...patch } });
  const input = (what: 'locale' | 'decimal' | 'group', hint?: string) => (
    <TextOption
      id={id(`nf-${what}`)}
      label={t(`number_format.${what}`)}
      hint={hint}
      value={nf[what]}
      onValue={(value) => set({ [what]: value })}
    />
  );
  return (
    <fieldset class="number-format">
      <legend>{t('number_format.legend')}</legend>
      <div class="grid">
        {input('locale', t('number_format.locale_hint'))}
        {input('decimal', t('number_format.decimal_hint'))}
        {input('group')}
      </div>
      {(['currency', 'percent'] as const).map((flag) => (
        <div class="check" key={flag}>
          <input
            id={id(`nf-${flag}`)}
            type="checkbox"
            checked={nf[flag]}
            onChange={(e) => set({ [flag]: (e.target as HTMLInputElement).checked })}
          />
          <label for={id(`nf-${flag}`)}>{t(`number_format.${flag}`)}</label>
        </div>
      ))}
      <FieldError id={id('number_format-error')} messages={errors} />
    </fieldset>
  );
}

const CHECK_OPTIONS = ['pattern', 'min', 'max', 'min_length', 'max_length', 'unique'] as const;

/**
 * A field's validators (docs/api.md, "Validators") behind a disclosure, to keep the form short: open when one is set or the
 * API has a message about one. Bounds only for numbers and dates (or when one was set elsewhere, so that its message shows).
 */
function FieldChecks({
  row,
  id,
  errors,
  onChange,
}: {
  row: FieldRow;
  id: (what: string) => string;
  errors: Record<string, string[]>;
  onChange: (patch: Partial<FieldRow>) => void;
}) {
  const inUse = CHECK_OPTIONS.some((o) => (typeof row[o] === 'string' ? row[o].trim() !== '' : row[o] === true));
  const hasErrors = CHECK_OPTIONS.some((o) => errors[o]?.length);
  const isDate = isDateType(row.data_type);
  const input = (what: 'pattern' | 'min' | 'max' | 'min_length' | 'max_length', label: string, hint?: string, numeric = false) => (
    <TextOption
      id={id(what)}
      label={label}
      hint={hint}
      value={row[what]}
      onValue={(value) => onChange({ [what]: value })}
      errors={errors[what]}
      numeric={numeric}
      spellcheck={false}
    />
  );
  // Open when a check is set, and then the person's to open and close: clearing the last check must not shut it
  // around the input being edited (Preact sets `open` whenever the value drawn changes), nor take that input away.
  const [open, setOpen] = useState(inUse || hasErrors);
  const boundsShown = useRef(false);
  if (row.min.trim() !== '' || row.max.trim() !== '') boundsShown.current = true;
  const showBounds = isDate || isNumberType(row.data_type) || boundsShown.current;
  return (
    <details class="checks" open={open || hasErrors} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{t('checks.summary')}</summary>
      {input('pattern', t('checks.pattern'), t('checks.pattern_hint'))}
      {showBounds && (
        <div class="grid">
          {input('min', isDate ? t('checks.min_date') : t('checks.min'), isDate ? t('checks.date_hint') : undefined)}
          {input('max', isDate ? t('checks.max_date') : t('checks.max'), isDate ? t('checks.date_hint') : undefined)}
        </div>
      )}
      <div class="grid">
        {input('min_length', t('checks.min_length'), undefined, true)}
        {input('max_length', t('checks.max_length'), undefined, true)}
      </div>
      <div class="check">
        <input
          id={id('unique')}
          type="checkbox"
          checked={row.unique}
          onChange={(e) => onChange({ unique: (e.target as HTMLInputElement).checked })}
          {...errorProps(id('unique-error'), errors.unique)}
        />
        <label for={id('unique')}>{t('checks.unique')}</label>
      </div>
      <FieldError id={id('unique-error')} messages={errors.unique} />
    </details>
  );
}

/** The schema's own checks: sets of fields unique together, and the customer's validation hook (docs/validation-hook.md). */
function SchemaChecksEditor({
  checks,
  errors,
  onChange,
}: {
  checks: SchemaChecks;
  errors: Record<string, string[]>;
  onChange: (patch: Partial<SchemaChecks>) => void;
}) {
  // `unique_with` and `unique_with.0`, `unique_with.1`, … all belong beside the one input.
  const uniqueWithErrors = Object.entries(errors)
    .filter(([key]) => key === 'unique_with' || key.startsWith('unique_with.'))
    .flatMap(([key, messages]) => {
      const line = Number(key.split('.')[1]);
      return Number.isInteger(line)
        ? messages.map((m) => t('schema.unique_with_line', { n: line + 1, message: personalSetMessage(m, t) }))
        : messages;
    });
  return (
    <fieldset class="schema-checks">
      <legend>{t('schema.checks')}</legend>
      <label for="schema-unique-with">{t('schema.unique_with')}</label>
      <textarea
        id="schema-unique-with"
        rows={2}
        spellcheck={false}
        value={checks.unique_with}
        onInput={(e) => onChange({ unique_with: (e.target as HTMLTextAreaElement).value })}
        aria-describedby="schema-unique-with-hint"
        {...errorProps('schema-unique-with-error', uniqueWithErrors.length ? uniqueWithErrors : undefined)}
      />
      <p id="schema-unique-with-hint" class="hint">
        {t('schema.unique_with_hint')}
      </p>
      <FieldError id="schema-unique-with-error" messages={uniqueWithErrors.length ? uniqueWithErrors : undefined} />
      <label for="schema-validation-url">{t('schema.validation_url')}</label>
      <input
        id="schema-validation-url"
        type="url"
        spellcheck={false}
        value={checks.validation_url}
        onInput={(e) => onChange({ validation_url: (e.target as HTMLInputElement).value })}
        aria-describedby="schema-validation-url-hint"
        {...errorProps('schema-validation-url-error', errors.validation_url)}
      />
      <p id="schema-validation-url-hint" class="hint">
        {t('schema.validation_url_hint')}
      </p>
      <FieldError id="schema-validation-url-error" messages={errors.validation_url} />
    </fieldset>
  );
}
