import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';

/**
 * A modal question before an action that cannot be undone (native <dialog>: focus stays inside,
 * Escape cancels, focus returns to what opened it). The confirming button says what it does.
 */
export function ConfirmDialog({
  open,
  title,
  body,
  confirm,
  danger = true,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  body: string;
  confirm: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  // Ids of its own: a page may hold several dialogs, and each must be named by its own title.
  const id = useId();
  // In the render that opens or closes it, not a frame later: a confirmed action that answers within the frame moves
  // the focus (to the changed row), and a dialog closed after that would put the focus back on its opener, gone by then.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      dialog.querySelector<HTMLButtonElement>('button.cancel')?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
      (opener.current as HTMLElement | null)?.focus?.();
    }
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`} onCancel={(e) => (e.preventDefault(), onCancel())}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p id={`${id}-body`}>{body}</p>
      <div class="actions">
        <button type="button" class="secondary cancel" onClick={onCancel}>
          {t('dialog.cancel')}
        </button>
        <button type="button" class={danger ? 'danger' : ''} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}
