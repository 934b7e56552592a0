import { t } from '../i18n';
import { announce } from './status';

/**
 * Copies a text to the clipboard and says so; `label` names what is copied (e.g. "Copy the key"). `onCopied` hears of
 * a copy that worked, with the text it copied.
 */
export function CopyButton({ text, label, onCopied }: { text: string; label: string; onCopied?: (text: string) => void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      onCopied?.(text);
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
