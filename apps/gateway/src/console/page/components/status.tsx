import { useEffect, useRef, useState } from 'preact/hooks';
import { useBottomRoom } from '../../../web-shared/page/bottom-room';
import { t } from '../i18n';

/** What the last action did, said in the page's live region (and shown) so that every action gives feedback. */
type Status = { text: string; kind: 'ok' | 'error' } | null;
let current: Status = null;
const listeners = new Set<(s: Status) => void>();

/** Where the keyboard was when the status was said: "Dismiss" gives it back there rather than to the page's top. */
let focusBefore: Element | null = null;

export function announce(text: string, kind: 'ok' | 'error' = 'ok'): void {
  current = { text, kind };
  if (!document.activeElement?.closest('.status-area')) focusBefore = document.activeElement;
  listeners.forEach((l) => l(current));
}

/** The member dismisses the status: the keyboard goes back where it was, else to the page's heading. */
function dismiss(): void {
  clearStatus();
  const back = focusBefore instanceof HTMLElement && focusBefore.isConnected && focusBefore !== document.body ? focusBefore : null;
  (back ?? document.querySelector<HTMLElement>('h1'))?.focus();
}

export const clearStatus = (): void => {
  current = null;
  listeners.forEach((l) => l(current));
};

/** The live region; role=status for results, role=alert for failures. */
export function StatusRegion() {
  const [status, setStatus] = useState<Status>(current);
  const area = useRef<HTMLDivElement>(null);
  useBottomRoom(area, status !== null);
  useEffect(() => {
    listeners.add(setStatus);
    return () => void listeners.delete(setStatus);
  }, []);
  // Shown until the member dismisses it or goes to another page (main.tsx), so nothing stays covered for long.
  return (
    <div ref={area} class={status ? `status-area shown ${status.kind}` : 'status-area'}>
      <p role="status" class={status?.kind === 'ok' ? 'notice ok' : 'visually-hidden'}>
        {status?.kind === 'ok' ? status.text : ''}
      </p>
      <p role="alert" class={status?.kind === 'error' ? 'notice error' : 'visually-hidden'}>
        {status?.kind === 'error' ? status.text : ''}
      </p>
      {status && (
        <button type="button" class="secondary dismiss" onClick={dismiss}>
          {t('notice.dismiss')}
        </button>
      )}
    </div>
  );
}
