import { t } from '../i18n';
import { announce } from './status';

/** Copies a text to the clipboard and says so; `label` names what is copied (e.g. "Copy the key"). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      announce(t('copy.done'));
    } catch {
      announce(t('copy.failed'), 'error');
    }
  };
  return (
    <button type="button" class="secondary" onClick={copy}>
      {label}
    </button>
  );
}
