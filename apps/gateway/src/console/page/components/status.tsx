import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';

/** What the last action did, said in the page's live region (and shown) so that every action gives feedback. */
type Status = { text: string; kind: 'ok' | 'error' } | null;
let current: Status = null;
const listeners = new Set<(s: Status) => void>();

export function announce(text: string, kind: 'ok' | 'error' = 'ok'): void {
  current = { text, kind };
  listeners.forEach((l) => l(current));
}

export const clearStatus = (): void => {
  current = null;
  listeners.forEach((l) => l(current));
};

/** The live region; role=status for results, role=alert for failures. */
export function StatusRegion() {
  const [status, setStatus] = useState<Status>(current);
  useEffect(() => {
    listeners.add(setStatus);
    return () => void listeners.delete(setStatus);
  }, []);
  // Shown until the member dismisses it or goes to another page (main.tsx), so nothing stays covered for long.
  return (
    <div class={status ? `status-area shown ${status.kind}` : 'status-area'}>
      <p role="status" class={status?.kind === 'ok' ? 'notice ok' : 'visually-hidden'}>
        {status?.kind === 'ok' ? status.text : ''}
      </p>
      <p role="alert" class={status?.kind === 'error' ? 'notice error' : 'visually-hidden'}>
        {status?.kind === 'error' ? status.text : ''}
      </p>
      {status && (
        <button type="button" class="secondary dismiss" onClick={clearStatus}>
          {t('notice.dismiss')}
        </button>
      )}
    </div>
  );
}
