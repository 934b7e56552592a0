/**
 * The page's states other than the review itself: preparing, expired, failed, an invalid link, a review that could not
 * be loaded, and a closed review's notice.
 */
import type { ComponentChildren } from 'preact';
import { formatDate, listOf, numbers, t } from '../i18n';
import { callbackTarget } from '../callback-target';
import { hiddenRowsLeftOut, load, rowsLeftOut, type State } from '../state';
import type { ReviewView } from '../types';

/** A whole-page state; its title takes the focus when the page turns into it. */
function StateSection({ kind, title, children }: { kind: string; title: string; children: ComponentChildren }) {
  return (
    <section class={`state state-${kind}`} aria-labelledby="state-title">
      <h2 id="state-title" tabindex={-1}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/** What the page says of its own work (a check for news that failed): read out as it changes. */
function Live({ live }: { live: State['live'] }) {
  return (
    <p id="live" role="status" aria-live="polite" class={live.kind && live.text ? `notice ${live.kind}` : ''}>
      {live.text}
    </p>
  );
}

/** Before the upload the page waits for the file; after it, the file is being read. */
export function Preparing({ view, live }: { view: ReviewView; live: State['live'] }) {
  const waiting = view.waiting_for_upload;
  return (
    <StateSection kind="preparing" title={waiting ? t('preparing_upload_title') : t('preparing_title')}>
      <p id="preparing-body">{waiting ? t('preparing_upload') : t('preparing_body')}</p>
      <p id="progress" class="muted">
        {view.processed_rows > 0 ? t('preparing_progress', { count: view.processed_rows }) : ''}
      </p>
      <Live live={live} />
    </StateSection>
  );
}

/** The first ask for the review failed: why, and "Try again" (the page also asks again by itself when it may help). */
export function Unreachable({ live }: { live: State['live'] }) {
  return (
    <StateSection kind="unreachable" title={t('unreachable_title')}>
      <Live live={live} />
      <button type="button" id="try-again" onClick={() => void load()}>
        {t('try_again')}
      </button>
    </StateSection>
  );
}

export function Expired({ view }: { view: ReviewView }) {
  return (
    <StateSection kind="expired" title={t('expired_title')}>
      <p>{t('expired_body', { date: formatDate(view.review_expires_at) })}</p>
    </StateSection>
  );
}

export function Failed({ view }: { view: ReviewView }) {
  return (
    <StateSection kind="failed" title={t('failed_title')}>
      <p class="notice error">{t('failed_body', { message: view.error ? view.error.message : '' })}</p>
    </StateSection>
  );
}

export function InvalidLink() {
  return (
    <StateSection kind="invalid" title={t('invalid_title')}>
      <p>{t('invalid_body')}</p>
    </StateSection>
  );
}

/** An approved or canceled review: what happened, then (right after the reviewer's own action) where the page goes. */
export function ClosedNotice({ view, justActed }: { view: ReviewView; justActed: boolean }) {
  const approved = view.phase === 'approved';
  const target = justActed ? callbackTarget(view) : null;
  const leftOut = rowsLeftOut(view);
  // The hidden rows left out together (not in that list): how many.
  const hiddenOut = hiddenRowsLeftOut(view);
  return (
    // Approved is a success; canceled is not (no output will come), so it is not shown in green.
    <section class={approved ? 'notice ok state-closed' : 'notice state-closed'} aria-labelledby="state-title">
      <h2 id="state-title" tabindex={-1}>
        {approved ? t('approved_title') : t('canceled_title')}
      </h2>
      <p id="closed-body">
        {approved
          ? t(view.output_ready ? 'approved_body_ready' : 'approved_body', { date: formatDate(view.review_approved_at) })
          : t('canceled_body', { date: formatDate(view.review_canceled_at) })}
      </p>
      {approved && leftOut.length > 0 && (
        <p id="closed-left-out">{t('approved_left_out', { count: leftOut.length, rows: listOf(leftOut.map((r) => numbers.format(r))) })}</p>
      )}
      {approved && hiddenOut > 0 && <p id="closed-hidden-left-out">{t('approved_hidden_left_out', { count: hiddenOut })}</p>}
      {approved && view.problem_rows_choice === 'exclude' && (
        <p id="closed-excluded">
          {view.rows_excluded === null
            ? t('approved_excluding')
            : // The count has the rows left out by hand in it too: then it is said as the sum it is.
              t(leftOut.length > 0 || hiddenOut > 0 ? 'approved_excluded_all' : 'approved_excluded', { count: view.rows_excluded })}
        </p>
      )}
      {target ? <p id="redirect">{t('redirecting', { host: target.host })}</p> : <p>{justActed ? t('close_page') : t('read_only')}</p>}
    </section>
  );
}
