import type { ApiFailure } from '../api';
import { t } from '../i18n';

/** While a list or page loads, or when it could not: a sentence, with what to do next. */
export function LoadState({ loading, error, onRetry }: { loading: boolean; error: ApiFailure | null; onRetry: () => void }) {
  if (error)
    return (
      <div class="notice error" role="alert">
        <p>{error.message}</p>
        <button type="button" class="secondary" onClick={onRetry}>
          {t('load.retry')}
        </button>
      </div>
    );
  if (loading) return <p class="muted">{t('app.loading')}</p>;
  return null;
}
