import { useRef, useState } from 'preact/hooks';
import { api, failureText, refusalText, type ApiFailure, type Paged } from '../api';
import { t } from '../i18n';
import { canChange, type SessionView } from '../session';
import { useAction } from '../use-action';
import { useFocusOnFirstError } from '../use-error-focus';
import { useLoad } from '../use-load';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { errorProps, FieldError } from './field-error';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { Pager } from './pager';
import { AttemptTable } from './run-page';
import { announce, clearStatus } from './status';

/** Webhook settings: the default URL, the secret (revealed and rotated by owners and admins), a test event, the delivery log. */
export function WebhookPage({ session }: { session: SessionView }) {
  const editable = canChange(session);
  return (
    <section>
      <PageTitle text={t('webhook.title')} />
      <DefaultUrl editable={editable} />
      {editable ? <Secret /> : <p class="notice">{t('webhook.viewer_secret')}</p>}
      <DeliveryLog />
      <Verify />
    </section>
  );
}

function DefaultUrl({ editable }: { editable: boolean }) {
  const settings = useLoad<{ data: { url: string | null } }>('/webhook');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusOnFirstError(formRef, errors);
  const save = async (event: Event) => {
    event.preventDefault();
    const raw = new FormData(event.target as HTMLFormElement).get('url');
    const url = typeof raw === 'string' ? raw.trim() : '';
    clearStatus();
    try {
      await api('PUT', '/webhook', { url: url || null });
      setErrors({});
      announce(url ? t('webhook.url_saved') : t('webhook.url_removed'));
      settings.reload();
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(refusalText(failure, ['url']), 'error');
    }
  };
  // The test goes to the URL in the field, saved or not: a person who typed a new one means to try that one, and a
  // test of the saved URL said "delivered" for an address never contacted.
  const sendTest = useAction(async () => {
    const raw = formRef.current ? new FormData(formRef.current).get('url') : null;
    const typed = typeof raw === 'string' ? raw.trim() : '';
    const saved = settings.data?.data.url ?? '';
    const unsaved = typed !== '' && typed !== saved ? ` ${t('webhook.test_unsaved')}` : '';
    announce(t('webhook.test_sending'));
    try {
      const { data } = await api<{ data: { delivered: boolean; status_code: number | null; error: string | null; duration_ms: number } }>(
        'POST',
        '/webhook/test',
        // The saved URL is tested as saved (the service sends to it as runs do, also one saved before stricter rules).
        typed && typed !== saved ? { url: typed } : {},
      );
      setErrors({});
      const url = typed || saved;
      announce(
        (data.delivered
          ? t('webhook.test_ok', { url, code: data.status_code ?? '', ms: data.duration_ms })
          : t('webhook.test_failed', { url, reason: data.error ?? String(data.status_code), ms: data.duration_ms })) + unsaved,
        data.delivered ? 'ok' : 'error',
      );
    } catch (err) {
      const failure = err as ApiFailure;
      setErrors(failure.fields ?? {});
      announce(failure.fields ? refusalText(failure, ['url']) : failureText(failure), 'error');
    }
  });
  return (
    <section aria-labelledby="url-title">
      <h2 id="url-title">{t('webhook.url_title')}</h2>
      <p class="muted">{t('webhook.url_intro')}</p>
      <LoadState loading={settings.loading && !settings.data} error={settings.error} onRetry={settings.reload} />
      {settings.data && (
        <form ref={formRef} onSubmit={save} noValidate>
          <label for="webhook-url">{t('webhook.url')}</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            // Not `value`: a render (a refused save's errors) would put the stored URL back over what the person typed.
            defaultValue={settings.data.data.url ?? ''}
            readOnly={!editable}
            {...errorProps('webhook-url-error', errors.url)}
          />
          <FieldError id="webhook-url-error" messages={errors.url} />
          {editable && (
            <div class="actions">
              <button type="submit">{t('webhook.url_save')}</button>
              <button type="button" class="secondary" onClick={() => sendTest.run()} aria-disabled={sendTest.busy || undefined}>
                {t('webhook.test')}
              </button>
            </div>
          )}
        </form>
      )}
    </section>
  );
}

function Secret() {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const reveal = useAction(async () => {
    try {
      const { data } = await api<{ data: { secret: string } }>('POST', '/webhook/secret/reveal', {});
      setSecret(data.secret);
      announce(t('webhook.secret_revealed'));
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  });
  const rotate = async () => {
    setConfirm(false);
    try {
      const { data } = await api<{ data: { secret: string } }>('POST', '/webhook/secret/rotate', {});
      setSecret(data.secret);
      announce(t('webhook.secret_rotated'));
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  };
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">{t('webhook.secret_title')}</h2>
      <p class="muted">{t('webhook.secret_intro')}</p>
      <p>
        <span class="visually-hidden">{t('webhook.secret_label')} </span>
        <code class="secret" id="webhook-secret">
          {secret ?? t('webhook.secret_hidden')}
        </code>
      </p>
      <div class="actions">
        {/* One button that reveals and hides: it keeps the keyboard's focus when its words change. */}
        <button
          type="button"
          class="secondary"
          aria-controls="webhook-secret"
          aria-disabled={reveal.busy || undefined}
          onClick={secret === null ? () => reveal.run() : () => setSecret(null)}
        >
          {secret === null ? t('webhook.reveal') : t('webhook.hide')}
        </button>
        {secret !== null && <CopyButton text={secret} label={t('webhook.copy_secret')} />}
        <button type="button" class="danger" onClick={() => setConfirm(true)}>
          {t('webhook.rotate')}
        </button>
      </div>
      <ConfirmDialog
        open={confirm}
        title={t('webhook.rotate_title')}
        body={t('webhook.rotate_body')}
        confirm={t('webhook.rotate_confirm')}
        onConfirm={rotate}
        onCancel={() => setConfirm(false)}
      />
    </section>
  );
}

function DeliveryLog() {
  const [filter, setFilter] = useState({ event: '', outcome: '', page: 1 });
  const query = new URLSearchParams({ page: String(filter.page), per_page: '20' });
  if (filter.event) query.set('event', filter.event);
  if (filter.outcome) query.set('outcome', filter.outcome);
  const log = useLoad<Paged<Parameters<typeof AttemptTable>[0]['attempts'][number]>>(`/deliveries?${query}`);
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">{t('webhook.log_title')}</h2>
      <div class="filters">
        <div>
          <label for="log-event">{t('webhook.log_event')}</label>
          <select id="log-event" onChange={(e) => setFilter({ ...filter, event: (e.target as HTMLSelectElement).value, page: 1 })}>
            <option value="">{t('runs.any')}</option>
            {['transformation.finished', 'transformation.failed', 'transformation.review.canceled'].map((ev) => (
              <option key={ev} value={ev}>
                {ev}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="log-outcome">{t('webhook.log_outcome')}</label>
          <select id="log-outcome" onChange={(e) => setFilter({ ...filter, outcome: (e.target as HTMLSelectElement).value, page: 1 })}>
            <option value="">{t('runs.any')}</option>
            <option value="delivered">{t('delivery.delivered')}</option>
            <option value="failed">{t('delivery.failed')}</option>
          </select>
        </div>
        <button type="button" class="secondary" onClick={log.reload}>
          {t('webhook.log_refresh')}
        </button>
      </div>
      <LoadState loading={log.loading && !log.data} error={log.error} onRetry={log.reload} />
      {log.data && log.data.meta.total === 0 && <p>{t(filter.event || filter.outcome ? 'webhook.log_none' : 'webhook.log_empty')}</p>}
      {log.data && log.data.data.length > 0 && <AttemptTable attempts={log.data.data} onResend={null} showRun />}
      {log.data && (
        <Pager
          page={log.data.meta.current_page}
          lastPage={log.data.meta.last_page}
          total={log.data.meta.total}
          onPage={(page) => setFilter({ ...filter, page })}
          label={t('webhook.log_pages')}
        />
      )}
      <p class="muted">{t('webhook.log_resend_hint')}</p>
    </section>
  );
}

const VERIFY_NODE = `import { timingSafeEqual } from 'node:crypto';

// Express: app.post('/hooks', express.raw({ type: 'application/json' }), handler)
function isFromTheService(req) {
  const got = Buffer.from(req.get('X-Service-Webhook-Secret') ?? '');
  const want = Buffer.from(process.env.WEBHOOK_SECRET);
  return got.length === want.length && timingSafeEqual(got, want);
}
// Or verify the Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature):
// new (require('standardwebhooks').Webhook)(process.env.WEBHOOK_SECRET).verify(rawBody, req.headers)`;

function Verify() {
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">{t('webhook.verify_title')}</h2>
      <p>{t('webhook.verify_intro')}</p>
      <pre class="code" tabIndex={0} role="region" aria-label={t('webhook.verify_code')}>
        {VERIFY_NODE}
      </pre>
      <CopyButton text={VERIFY_NODE} label={t('webhook.verify_copy')} />
    </section>
  );
}
