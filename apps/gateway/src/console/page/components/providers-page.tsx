import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, refusalText, type ApiFailure, type Paged } from '../api';
import { t } from '../i18n';
import { canChange, type SessionView } from '../session';
import { useAction, useRowAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { useLoad } from '../use-load';
import { useRemovalFocus } from '../use-removal-focus';
import { ConfirmDialog } from './confirm-dialog';
import { errorProps, FieldError } from './field-error';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { announce, clearStatus } from './status';

interface Provider {
  id: string;
  name: string;
  provider: string;
  provider_label: string;
  model: string;
  model_label: string;
  base_url: string | null;
  has_api_key: boolean;
}
const VENDORS = ['openai', 'anthropic'];
const ADD_ID = 'add-provider';
/** The members of a provider the form has an input for (the API's messages about them are shown beside it). */
const PROVIDER_INPUTS = ['name', 'provider', 'model', 'model_label', 'api_key', 'base_url'];

/** AI providers: add, edit, delete, test; the vendor key is write-only. */
export function ProvidersPage({ session }: { session: SessionView }) {
  const list = useLoad<Paged<Provider>>('/providers?per_page=100');
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const editable = canChange(session);
  const deleteId = (p: Provider) => `delete-provider-${p.id}`;
  const editId = (p: Provider) => `edit-provider-${p.id}`;
  const focus = useRemovalFocus(list.data?.data, deleteId);
  // Names are not unique: a provider that shares its name is named with the start of its id too ("Delete OpenAI
  // (f4de92f2)"), which its card shows, in its buttons, the question and the messages. Two cards that read alike, each
  // with "Delete OpenAI", said nothing of which would go.
  const named = (p: Provider): string => {
    const same = (o: Provider) => o.name.trim().toLocaleLowerCase() === p.name.trim().toLocaleLowerCase();
    return (list.data?.data.filter(same).length ?? 0) > 1 ? t('providers.name_with_id', { name: p.name, id: p.id.slice(0, 8) }) : p.name;
  };
  // The button that opened the form gets the focus back when it closes (saved or canceled): the form's buttons go with
  // it, and the browser would drop the focus to the page's body.
  const opener = useRef<string | null>(null);
  const open = (what: Provider | 'new') => {
    opener.current = what === 'new' ? ADD_ID : editId(what);
    setEditing(what);
  };
  useLayoutEffect(() => {
    if (editing !== null || !opener.current) return;
    document.getElementById(opener.current)?.focus();
    opener.current = null;
  }, [editing]);

  const test = useRowAction(
    (p: Provider) => p.id,
    async (p: Provider) => {
      announce(t('providers.testing', { name: named(p) }));
      try {
        const { data } = await api<{ data: { ok: boolean; message: string; duration_ms: number } }>('POST', `/providers/${p.id}/test`, {});
        announce(
          t(data.ok ? 'providers.test_ok' : 'providers.test_failed', { name: named(p), message: data.message, ms: data.duration_ms }),
          data.ok ? 'ok' : 'error',
        );
      } catch (err) {
        announce(failureText(err as ApiFailure), 'error');
      }
    },
  );
  const remove = async () => {
    const p = deleting!;
    setDeleting(null);
    try {
      await api('DELETE', `/providers/${p.id}`);
      announce(t('providers.deleted', { name: named(p) }));
      focus.removed(p);
      list.reload();
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };
  return (
    <section>
      <PageTitle text={t('providers.title')} headingRef={focus.heading} />
      <p>{t('providers.intro')}</p>
      {editable && editing === null && (
        <button type="button" id={ADD_ID} onClick={() => open('new')}>
          {t('providers.add')}
        </button>
      )}
      {editing !== null && (
        <ProviderForm
          key={editing === 'new' ? 'new' : editing.id}
          provider={editing === 'new' ? null : editing}
          onDone={(saved) => {
            setEditing(null);
            if (saved) list.reload();
          }}
        />
      )}
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={list.reload} />
      {list.data && list.data.data.length === 0 && <p>{t('providers.none')}</p>}
      {list.data && list.data.data.length > 0 && (
        <ul class="cards">
          {list.data.data.map((p) => (
            <li key={p.id}>
              <h2 class="card-title">{p.name}</h2>
              <p>
                {p.provider_label} · {p.model_label}
              </p>
              {/* Its id, as the API's provider_id names it: two providers of one name are told apart by it. */}
              <p class="muted">
                {t('providers.id')} <code>{p.id}</code>
              </p>
              <p class="muted">
                {t('providers.key')}:{' '}
                {p.has_api_key ? (
                  <>
                    <span aria-hidden="true">•••••••• </span>
                    {t('providers.key_set')}
                  </>
                ) : (
                  t('providers.key_none')
                )}
              </p>
              {editable && (
                <div class="actions">
                  <button type="button" class="secondary" onClick={() => test.run(p)} aria-disabled={test.isBusy(p) || undefined}>
                    {t('providers.test', { name: named(p) })}
                  </button>
                  <button type="button" id={editId(p)} class="secondary" onClick={() => open(p)}>
                    {t('providers.edit', { name: named(p) })}
                  </button>
                  <button type="button" id={deleteId(p)} class="danger" onClick={() => setDeleting(p)}>
                    {t('providers.delete', { name: named(p) })}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('providers.delete_title', { name: deleting ? named(deleting) : '' })}
        body={t('providers.delete_body')}
        confirm={t('providers.delete_confirm')}
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      />
    </section>
  );
}

function ProviderForm({ provider, onDone }: { provider: Provider | null; onDone: (saved: boolean) => void }) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  // A refused save: the keyboard goes to the first field the answer names, as in every other form.
  useFocusOnFirstError(formRef, errors);
  // Opened at the top of the page, away from the button pressed: the focus goes to its first field, in the render that
  // draws it (an effect a frame later would take the focus from a field already being typed in).
  useLayoutEffect(() => document.getElementById('p-name')?.focus(), []);
  // Once at a time: a double click would add the provider twice.
  const save = useAction(async (formElement: HTMLFormElement) => {
    const form = new FormData(formElement);
    const body: Record<string, unknown> = {
      name: form.get('name'),
      provider: form.get('provider'),
      model: form.get('model'),
      model_label: form.get('model_label') || null,
      base_url: form.get('base_url') || null,
    };
    // Write-only: an empty key field keeps the stored key.
    if (form.get('api_key')) body.api_key = form.get('api_key');
    clearStatus();
    try {
      await api(provider ? 'PUT' : 'POST', provider ? `/providers/${provider.id}` : '/providers', body);
      announce(t('providers.saved', { name: String(body.name) }));
      onDone(true);
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(refusalText(failure, PROVIDER_INPUTS), 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(event.target as HTMLFormElement);
  };
  const input = (name: string, label: string, value: string, type: 'text' | 'password' | 'url' = 'text', hint?: string) => (
    <div>
      <label for={`p-${name}`}>{label}</label>
      <input
        id={`p-${name}`}
        name={name}
        // Preact's input types narrow `type` by literal: the page's tsc needs the assertion, ESLint's project does not.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        type={type as 'text'}
        // Not `value`: the render that shows a refused save's errors would put the stored values back over what was typed.
        defaultValue={value}
        autoComplete="off"
        {...(hint ? { 'aria-describedby': `p-${name}-hint` } : {})}
        {...errorProps(`p-${name}-error`, errors[name])}
      />
      {hint && (
        <p id={`p-${name}-hint`} class="hint">
          {hint}
        </p>
      )}
      <FieldError id={`p-${name}-error`} messages={errors[name]} />
    </div>
  );
  return (
    <form ref={formRef} class="panel" onSubmit={submit} noValidate aria-labelledby="provider-form-title">
      <h2 id="provider-form-title">{provider ? t('providers.edit_title', { name: provider.name }) : t('providers.add_title')}</h2>
      {input('name', t('providers.name'), provider?.name ?? '')}
      <div>
        <label for="p-provider">{t('providers.vendor')}</label>
        <select id="p-provider" name="provider" {...errorProps('p-provider-error', errors.provider)}>
          {VENDORS.map((v) => (
            <option key={v} value={v} selected={provider?.provider === v}>
              {t(`vendor.${v}`)}
            </option>
          ))}
        </select>
        <FieldError id="p-provider-error" messages={errors.provider} />
      </div>
      {input('model', t('providers.model'), provider?.model ?? '')}
      {input('model_label', t('providers.model_label'), provider && provider.model_label !== provider.model ? provider.model_label : '')}
      {input(
        'api_key',
        t('providers.api_key'),
        '',
        'password',
        provider?.has_api_key ? t('providers.api_key_keep') : t('providers.api_key_hint'),
      )}
      {input('base_url', t('providers.base_url'), provider?.base_url ?? '', 'url', t('providers.base_url_hint'))}
      <div class="actions">
        <button type="submit" aria-disabled={save.busy || undefined}>
          {t('providers.save')}
        </button>
        <button type="button" class="secondary" onClick={() => onDone(false)}>
          {t('dialog.cancel')}
        </button>
      </div>
    </form>
  );
}
