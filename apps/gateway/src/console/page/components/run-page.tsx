import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, failureText, type ApiFailure, type Paged } from '../api';
import { formatDate, has, numbers, t } from '../i18n';
import { canChange, type SessionView } from '../session';
import { useRowAction } from '../use-action';
import { useLoad } from '../use-load';
import { CopyButton } from './copy-button';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { RunBadge } from './run-badge';
import { Pager } from './pager';
import { announce } from './status';

interface Run {
  id: string;
  status: string;
  stage: string;
  review_state: string | null;
  /** Null for a viewer: the link edits and approves (server/run-for-role.ts). */
  review_url: string | null;
  download_url: string | null;
  input_source: string;
  total_rows: number | null;
  /** Rows left out of the output at the reviewer's choice (an addition to the spec's run resource). */
  rows_excluded?: number | null;
  notification_status: string | null;
  error: { code: string; message: string } | null;
  /** Beside the resource, as in the console's list: which file, and when. */
  filename?: string | null;
  created_at?: string;
  [key: string]: unknown;
}
interface TimelineEntry {
  type: string;
  at: string;
  details: Record<string, string | number | boolean | null>;
}
interface Attempt {
  id: string;
  delivery_id: string;
  event: string;
  url: string | null;
  attempt: number;
  outcome: 'delivered' | 'failed';
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  response_excerpt: string | null;
  /** A viewer is not given the receiver's answer (it may echo the secret or a link that acts). */
  response_excerpt_withheld?: boolean;
  sent_at: string;
  /** When the delivery's next attempt is planned (a retry, or a re-send not yet made); null once it has settled. Only on a run's list. */
  delivery_next_attempt_at?: string | null;
  /**
   * Whether this is its delivery's newest attempt, wherever that is listed: the server's word, as a page of the list cannot
   * tell (the newest may be on an earlier page). Only on a run's list.
   */
  delivery_newest?: boolean;
}

/** One run: the resource as the API returns it, its history in words, its links and its webhook deliveries. */
export function RunPage({ id, session }: { id: string; session: SessionView }) {
  const run = useLoad<{ data: Run }>(`/runs/${id}`);
  const timeline = useLoad<{ data: TimelineEntry[] }>(`/runs/${id}/timeline`);
  // Not this organization's run, or none: one page that says so, not a title with its id and three failed parts to retry.
  if (run.error?.status === 404)
    return (
      <section>
        <PageTitle text={t('run.title_missing')} />
        <p class="notice error">{run.error.message}</p>
        <a href="/console/runs">{t('run.back')}</a>
      </section>
    );
  return (
    <section>
      <p>
        <a href="/console/runs">{t('run.back')}</a>
      </p>
      <PageTitle text={t('run.title', { id: id.slice(0, 8) })} />
      <LoadState loading={run.loading && !run.data} error={run.error} onRetry={run.reload} />
      {run.data && <RunSummary run={run.data.data} />}
      <h2>{t('run.timeline')}</h2>
      <LoadState loading={timeline.loading && !timeline.data} error={timeline.error} onRetry={timeline.reload} />
      {timeline.data && (
        <ol class="timeline">
          {timeline.data.data.map((e, i) => (
            <li key={i}>
              <time dateTime={e.at}>{formatDate(e.at)}</time> <span>{describe(e)}</span>
            </li>
          ))}
        </ol>
      )}
      <Deliveries
        runId={id}
        session={session}
        onResent={() => {
          // The run's notification_status and its history change with the re-send and its attempt.
          timeline.reload();
          run.reload();
        }}
      />
      {run.data && (
        <details>
          <summary>{t('run.resource')}</summary>
          <pre class="json" tabIndex={0} role="region" aria-label={t('run.resource')}>
            {JSON.stringify(run.data.data, null, 2)}
          </pre>
        </details>
      )}
    </section>
  );
}

function RunSummary({ run }: { run: Run }) {
  const reviewOpen = run.review_state === 'active';
  return (
    <>
      <dl class="facts">
        {run.filename && (
          <>
            <dt>{t('run.file')}</dt>
            <dd>{run.filename}</dd>
          </>
        )}
        {run.created_at && (
          <>
            <dt>{t('run.created')}</dt>
            <dd>{formatDate(run.created_at)}</dd>
          </>
        )}
        <dt>{t('run.stage')}</dt>
        <dd>{t(`stage.${run.stage}`)}</dd>
        <dt>{t('run.status')}</dt>
        <dd>
          <RunBadge run={run} />
        </dd>
        <dt>{t('run.review')}</dt>
        <dd>{reviewState(run)}</dd>
        <dt>{t('run.rows')}</dt>
        <dd>
          {run.total_rows === null
            ? t(run.status === 'failed' || run.status === 'completed' ? 'run.none' : 'run.rows_not_yet')
            : run.rows_excluded
              ? t('run.rows_excluded', { rows: numbers.format(run.total_rows), excluded: numbers.format(run.rows_excluded) })
              : numbers.format(run.total_rows)}
        </dd>
        <dt>{t('run.webhook')}</dt>
        <dd>{outputWebhook(run)}</dd>
      </dl>
      {run.error && (
        <p class="notice error">
          {t('run.failed', { code: run.error.code })} {run.error.message}
        </p>
      )}
      {run.status === 'awaiting_upload' && <AwaitingUpload run={run} />}
      <div class="actions">
        {reviewOpen && run.review_url && (
          <>
            {/* It opens in a new tab: said to whoever does not see the tab appear (a screen reader said nothing of it). */}
            <a class="button" href={run.review_url} target="_blank" rel="noopener">
              {t('run.open_review')}
              <span class="visually-hidden"> {t('app.new_tab')}</span>
            </a>
            <CopyButton text={run.review_url} label={t('run.copy_review')} />
          </>
        )}
        {reviewOpen && !run.review_url && <p class="muted">{t('run.review_not_yours')}</p>}
        {run.download_url && (
          <a class="button" href={run.download_url}>
            {t('run.download')}
          </a>
        )}
      </div>
    </>
  );
}

/**
 * What a run waiting for its file needs next: the upload instructions (owners and admins; a viewer's run has none,
 * as they start it), with when they lapse, in place of the folded resource where they were the only word of it.
 */
function AwaitingUpload({ run }: { run: Run }) {
  const upload = run.upload as { url: string; method: string; headers?: Record<string, string>; expires_at: string } | undefined;
  if (!upload) return <p class="notice">{t('run.awaiting_upload_viewer')}</p>;
  const headers = Object.entries(upload.headers ?? {});
  return (
    <section class="notice" aria-labelledby="upload-title">
      <h2 id="upload-title">{t('run.upload_title')}</h2>
      <p>{t('run.upload_intro', { method: upload.method, expires: formatDate(upload.expires_at) })}</p>
      <p>
        <code class="secret">{upload.url}</code>
      </p>
      {headers.length > 0 && (
        <p>
          {t('run.upload_headers')} {headers.map(([name, value]) => `${name}: ${value}`).join(', ')}
        </p>
      )}
      <div class="actions">
        <CopyButton text={upload.url} label={t('run.copy_upload')} />
      </div>
    </section>
  );
}

/** A timeline line in plain words: the catalog's sentence for the event type, with its facts. */
function describe(e: TimelineEntry): string {
  const key = `timeline.${e.type}`;
  const params: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(e.details)) if (v !== null) params[k] = typeof v === 'boolean' ? String(v) : v;
  // Sentences about a number of rows or bytes agree with it ("1 row", "2 rows").
  const count = e.details.total_rows ?? e.details.rows_written ?? e.details.size_bytes;
  if (typeof count === 'number') params.count = count;
  if (typeof e.details.input_source === 'string') params.input_source = t(`source.${e.details.input_source}`);
  if (e.type === 'WebhookAttempted') params.result = e.details.outcome === 'delivered' ? t('delivery.delivered') : t('delivery.failed');
  // A fix (and its undo) says its field and what kind of fix it was; events recorded without them keep the bare line.
  // A row left out or put back (a fix of a whole row: no field) says which row.
  const rowFix = `timeline.row.${String(e.details.fix)}`;
  // The hidden rows left out or put back together (no row) say so.
  if (e.details.field === undefined && (typeof e.details.row === 'number' || String(e.details.fix).endsWith('_hidden')) && has(rowFix)) {
    const what = t(rowFix, params);
    return e.type === 'ValueFixUndone' ? t('timeline.ValueFixUndone.row', { what }) : what;
  }
  const fix = `timeline.fix.${String(e.details.fix)}${e.details.fix === 'date' && e.details.date_pattern === undefined ? '_any' : ''}`;
  if (typeof e.details.field === 'string' && has(fix) && has(`${key}.field`)) return t(`${key}.field`, { ...params, what: t(fix, params) });
  const line = has(key) ? t(key, params) : e.type;
  // A file read with rows that do not line up with its first row says how many (the review page says which).
  const misaligned = (['longer_rows', 'shorter_rows'] as const)
    .filter((k) => typeof e.details[k] === 'number')
    .map((k) => t(`timeline.${k}`, { count: e.details[k] as number }));
  return misaligned.length > 0 ? t('timeline.with_rows_out_of_line', { line, rows: misaligned.join('; ') }) : line;
}

function Deliveries({ runId, session, onResent }: { runId: string; session: SessionView; onResent: () => void }) {
  const [page, setPage] = useState(1);
  const list = useLoad<Paged<Attempt>>(`/runs/${runId}/deliveries?page=${page}&per_page=10`);
  // "Send again" lives on a delivery's newest attempt: when another attempt of it is listed (a re-send made, or the
  // retry that was planned), the button moves to that attempt's row and the one that had the focus goes. The focus
  // follows it there instead of falling to the page, and the new attempt's outcome is said, as nothing else says why
  // the keyboard moved. (Else, the button gone from this page, to the section's heading, which is said too.) Which delivery's button had
  // the focus is read as the list is drawn, before the redraw drops it: only a focus lost with its button is moved.
  const focused = useRef<{ deliveryId: string; attempt: number } | null>(null);
  focused.current = focusedResend();
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    const was = focused.current;
    if (!was || (document.activeElement && document.activeElement !== document.body)) return;
    const button = document.getElementById(resendButtonId(was.deliveryId));
    (button ?? heading.current)?.focus();
    const made = list.data?.data.find((a) => a.delivery_id === was.deliveryId);
    if (button && made && made.attempt > was.attempt)
      announce(t('delivery.attempt_made', { event: made.event, n: made.attempt, result: attemptResult(made) }));
    // On another page now: said too, or the keyboard would move to the heading without a word why.
    else if (!button) announce(t('delivery.attempt_elsewhere'));
  }, [list.data]);
  // A planned attempt's time passed: look again then, so the button is offered once it may be used.
  const nextPlanned = list.data?.data.reduce<number | null>((soonest, a) => {
    const at = a.delivery_next_attempt_at ? Date.parse(a.delivery_next_attempt_at) : NaN;
    return Number.isNaN(at) || (soonest !== null && soonest <= at) ? soonest : at;
  }, null);
  useEffect(() => {
    if (nextPlanned === null || nextPlanned === undefined) return;
    const timer = setTimeout(list.reload, Math.min(Math.max(0, nextPlanned - Date.now()) + 1000, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [nextPlanned]);
  const resend = useRowAction(
    (a: Attempt) => a.delivery_id,
    async (a: Attempt) => {
      try {
        await api('POST', `/runs/${runId}/deliveries/${a.delivery_id}/resend`, {});
        announce(t('delivery.resent', { event: a.event }));
        list.reload();
        onResent();
        // The attempt is made within moments: look again shortly.
        setTimeout(() => {
          list.reload();
          onResent();
        }, 1500);
      } catch (err) {
        announce(failureText(err as ApiFailure), 'error');
      }
    },
  );
  return (
    <>
      <h2 ref={heading} tabIndex={-1}>
        {t('run.deliveries')}
      </h2>
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={list.reload} />
      {list.data && list.data.meta.total === 0 && <p>{t('run.no_deliveries')}</p>}
      {list.data && list.data.data.length > 0 && (
        <AttemptTable
          attempts={list.data.data}
          onResend={canChange(session) ? (a) => void resend.run(a) : null}
          isResending={resend.isBusy}
        />
      )}
      {list.data && (
        <Pager
          page={list.data.meta.current_page}
          lastPage={list.data.meta.last_page}
          total={list.data.meta.total}
          onPage={setPage}
          label={t('run.delivery_pages')}
        />
      )}
    </>
  );
}

/** Delivery attempts: when, where, which event, the outcome, how long, and the start of the answer. */
export function AttemptTable({
  attempts,
  onResend,
  isResending = () => false,
  showRun = false,
}: {
  attempts: Attempt[];
  onResend: ((a: Attempt) => void) | null;
  /** Whether a re-send of this attempt's delivery is under way: its button says so and does nothing until it is answered. */
  isResending?: (a: Attempt) => boolean;
  showRun?: boolean;
}) {
  // "Send again" lives only on a delivery's newest attempt, which may be on another page than this one's older attempts.
  const resendable = (a: Attempt) => a.delivery_newest === true;
  return (
    <div class="table-wrap stack" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('delivery.col.time')}</th>
            {showRun && <th scope="col">{t('delivery.col.run')}</th>}
            <th scope="col">{t('delivery.col.event')}</th>
            <th scope="col">{t('delivery.col.outcome')}</th>
            <th scope="col">{t('delivery.col.duration')}</th>
            <th scope="col">{t('delivery.col.details')}</th>
            {onResend && <th scope="col">{t('delivery.col.action')}</th>}
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.id}>
              <td data-label={t('delivery.col.time')}>
                <time dateTime={a.sent_at}>{formatDate(a.sent_at)}</time>
                <br />
                <span class="muted">{t('delivery.attempt', { n: a.attempt })}</span>
              </td>
              {showRun && (
                <td data-label={t('delivery.col.run')}>
                  <a href={`/console/runs/${(a as Attempt & { run_id: string }).run_id}`}>
                    {(a as Attempt & { run_id: string }).run_id.slice(0, 8)}
                  </a>
                </td>
              )}
              <td data-label={t('delivery.col.event')}>{a.event}</td>
              <td data-label={t('delivery.col.outcome')}>
                <span class={`badge ${a.outcome}`}>{a.outcome === 'delivered' ? t('delivery.delivered') : t('delivery.failed')}</span>
                <br />
                {a.status_code !== null ? t('delivery.status', { code: a.status_code }) : (a.error ?? '')}
              </td>
              <td data-label={t('delivery.col.duration')}>{a.duration_ms !== null ? t('delivery.ms', { ms: a.duration_ms }) : '—'}</td>
              <td class="wrap" data-label={t('delivery.col.details')}>
                {a.url && <span class="url">{a.url}</span>}
                {a.error && a.status_code !== null && <span> · {a.error}</span>}
                {a.response_excerpt && <code class="excerpt">{a.response_excerpt}</code>}
                {a.response_excerpt_withheld && <span class="muted"> · {t('delivery.excerpt_withheld')}</span>}
              </td>
              {onResend && (
                <td class="action">{resendable(a) && <ResendButton attempt={a} onResend={onResend} resending={isResending(a)} />}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const RESEND_ID = 'resend-';
const resendButtonId = (deliveryId: string) => `${RESEND_ID}${deliveryId}`;

/** The delivery whose "Send again" has the focus now, if one has, and the attempt whose row it is on. */
function focusedResend(): { deliveryId: string; attempt: number } | null {
  const el = document.activeElement;
  if (!(el instanceof HTMLElement) || !el.id.startsWith(RESEND_ID)) return null;
  return { deliveryId: el.id.slice(RESEND_ID.length), attempt: Number(el.dataset.attempt) };
}

/** An attempt's outcome in words, as its row says it: "Delivered (HTTP 200)", "Failed (connection refused)". */
function attemptResult(a: Attempt): string {
  const outcome = a.outcome === 'delivered' ? t('delivery.delivered') : t('delivery.failed');
  const detail = a.status_code !== null ? t('delivery.status', { code: a.status_code }) : a.error;
  return detail ? `${outcome} (${detail})` : outcome;
}

/**
 * "Send again" for a delivery's newest attempt. While another attempt is planned the API would refuse
 * a re-send (409 delivery_pending): the button stays where it is, so the keyboard's focus is kept,
 * but is marked unavailable and says when the planned attempt is due.
 */
function ResendButton({ attempt: a, onResend, resending }: { attempt: Attempt; onResend: (a: Attempt) => void; resending: boolean }) {
  const planned = a.delivery_next_attempt_at ?? null;
  const noteId = `planned-${a.delivery_id}`;
  return (
    <>
      <button
        id={resendButtonId(a.delivery_id)}
        data-attempt={a.attempt}
        type="button"
        class="secondary"
        onClick={() => planned === null && onResend(a)}
        aria-disabled={resending || planned !== null || undefined}
        aria-describedby={planned !== null ? noteId : undefined}
      >
        {t('delivery.resend')}
        <span class="visually-hidden"> {t('delivery.resend_which', { event: a.event, time: formatDate(a.sent_at) })}</span>
      </button>
      {planned !== null && (
        <p class="hint" id={noteId}>
          {t('delivery.planned', { time: formatDate(planned) })}
        </p>
      )}
    </>
  );
}

/**
 * A run with no review yet says whether one is to come: "None" beside a run still waiting for its file read as if it
 * would never have one.
 */
function reviewState(run: Pick<Run, 'status' | 'review_state'>): string {
  if (run.review_state) return t(`review.${run.review_state}`);
  if (run.status === 'failed') return t('run.review_none_failed');
  return t(run.status === 'completed' ? 'run.none' : 'run.review_not_yet');
}

/**
 * The run's `notification_status` is that of the webhook announcing its finished output only: a failed or canceled
 * run has none, though its own webhook may have been sent (listed under the deliveries), and "None" beside failed
 * deliveries read as if nothing had been sent.
 */
function outputWebhook(run: Pick<Run, 'status' | 'stage' | 'review_state' | 'notification_status'>): string {
  if (run.notification_status) return t(`notification.${run.notification_status}`);
  if (run.status === 'failed' || run.review_state === 'canceled' || run.review_state === 'expired') return t('run.webhook_no_output');
  // A finished output without one: the organization had no webhook URL.
  return t(run.stage === 'final' && run.status === 'completed' ? 'run.none' : 'run.webhook_not_yet');
}
