/** The review (open, or closed and read-only): its notices, the live region, mapping, preview, rows with problems and actions. */
import { useRef } from 'preact/hooks';
import { messages, t } from '../i18n';
import { useBottomRoom } from '../../../web-shared/page/bottom-room';
import { approve, cancel, type State } from '../state';
import type { ReviewView } from '../types';
import { ConfirmDialog } from './confirm-dialog';
import { HiddenRowsNotice } from './hidden-rows-notice';
import { MappingSection } from './mapping-section';
import { PreviewSection } from './preview-section';
import { ProblemRowsSection } from './problem-rows-section';
import { RowsOutOfLineNotice } from './rows-out-of-line-notice';
import { ClosedNotice } from './states';

export function Review({ s, view }: { s: State; view: ReviewView }) {
  const active = view.phase === 'active';
  const bar = useRef<HTMLDivElement>(null);
  useBottomRoom(bar, active);
  return (
    <>
      {!active && <ClosedNotice view={view} justActed={s.justActed} />}
      {/* How the columns were matched, and what may be changed: said while they may be, not on a closed review. */}
      {(active ? view.notices || [] : []).map((notice) => (
        <p class="notice warn" role="note" data-notice={notice.code}>
          {messages[`notice_${notice.code}`] ? t(`notice_${notice.code}`) : notice.message}
        </p>
      ))}
      {active && <RowsOutOfLineNotice view={view} />}
      {/* Rows Excel does not show but the file holds: said on a closed review too (as text), so it is known what was read. */}
      <HiddenRowsNotice view={view} leaving={s.leavingRows} />
      {/* Coloured only while it says something: an empty coloured band read as a notice with no words. */}
      <div id="live" role="status" aria-live="polite" class={s.live.kind && s.live.text ? `notice ${s.live.kind}` : ''}>
        {s.live.text}
      </div>
      <MappingSection s={s} view={view} />
      <PreviewSection s={s} view={view} />
      <ProblemRowsSection s={s} view={view} />
      {active && (
        <div class="actions" ref={bar}>
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
