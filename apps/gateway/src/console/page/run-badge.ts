import { t } from './i18n';

/** What a run's badge needs of it (the run resource's own fields). */
export interface BadgeRun {
  status: string;
  stage: string;
  review_state?: string | null;
}

/**
 * The words and colour of a run's badge: where the run stands, not its `status` alone. The spec
 * calls a review that is ready, canceled or expired `completed` (its stage, `review`, completed):
 * in green, a canceled run looked like a delivered one. Green is kept for a run whose output was
 * made, red for a failed one.
 */
export function runBadge(run: BadgeRun): { text: string; tone: 'ok' | 'bad' | 'neutral' } {
  if (run.status === 'failed') return { text: t('status.failed'), tone: 'bad' };
  if (run.stage === 'review' && run.status === 'completed') {
    if (run.review_state === 'canceled') return { text: t('badge.review_canceled'), tone: 'neutral' };
    if (run.review_state === 'expired') return { text: t('badge.review_expired'), tone: 'neutral' };
    return { text: t('badge.in_review'), tone: 'neutral' };
  }
  if (run.status === 'completed') return { text: t('status.completed'), tone: 'ok' };
  return { text: t(`status.${run.status}`), tone: 'neutral' };
}
