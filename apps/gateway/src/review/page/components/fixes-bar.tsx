/** How many fixes are in force, and undo of the latest. */
import { t } from '../i18n';
import { undoFix } from '../state';

export function FixesBar({ fixes, undoable }: { fixes: number; undoable: boolean }) {
  return (
    <div id="fixes" class="fixes" hidden={fixes === 0}>
      <span id="fixes-count">{t('fixes_count', { count: fixes })}</span>
      {undoable && (
        <button type="button" id="fix-undo" onClick={() => void undoFix()}>
          {t('fix_undo')}
        </button>
      )}
    </div>
  );
}
