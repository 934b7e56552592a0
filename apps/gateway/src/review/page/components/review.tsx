/** The review (open, or closed and read-only): its notices, the live region, mapping, preview, rows with problems and actions. */
import { messages, t } from '../i18n';
import { approve, cancel, type State } from '../state';
import type { ReviewView } from '../types';
import { ConfirmDialog } from './confirm-dialog';
import { MappingSection } from './mapping-section';
import { PreviewSection } from './preview-section';
import { ProblemRowsSection } from './problem-rows-section';
import { ClosedNotice } from './states';

export function Review({ s, view }: { s: State; view: ReviewView }) {
  const active = view.phase === 'active';
  return (
    <>
      {!active && <ClosedNotice view={view} justActed={s.justActed} />}
      {(view.notices || []).map((notice) => (
        <p class="notice warn" role="note" data-notice={notice.code}>
          {messages[`notice_${notice.code}`] ? t(`notice_${notice.code}`) : notice.message}
        </p>
      ))}
      <div id="live" role="status" aria-live="polite" class={s.live.kind ? `notice ${s.live.kind}` : ''}>
        {s.live.text}
      </div>
      <MappingSection s={s} view={view} />
      <PreviewSection s={s} view={view} />
      <ProblemRowsSection s={s} view={view} />
      {active && (
        <div class="actions">
          <button type="button" id="approve" class="primary" disabled={s.busy} onClick={() => void approve()}>
            {t('approve')}
          </button>
          <button type="button" id="cancel" class="danger" disabled={s.busy} onClick={() => void cancel()}>
            {t('cancel')}
          </button>
        </div>
      )}
      {active && <ConfirmDialog question={s.confirm} />}
    </>
  );
}
