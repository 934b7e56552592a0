/** What became of the customer's own checks (a schema's validation hook): running, ran on how many rows, or why they could not run. */
import { numbers, t } from '../i18n';
import type { CustomerChecks } from '../types';

function text(checks: CustomerChecks): string {
  if (checks.status === 'running') return t('customer_checks_running');
  if (checks.status === 'ran')
    return t('customer_checks_ran', {
      count: numbers.format(checks.rows_checked),
      total: numbers.format(Math.max(checks.total_rows ?? 0, checks.rows_checked)),
    });
  return t('customer_checks_failed', { reason: t(`customer_checks_reason_${checks.reason ?? 'error'}`) });
}

export function CustomerChecksNote({ checks }: { checks: CustomerChecks | null }) {
  if (!checks) return null;
  // A failure is a warning, never a block: approval stays possible, and the text says so.
  const tone = checks.status === 'failed' ? 'notice warn' : checks.status === 'ran' ? 'notice ok' : '';
  return (
    <p id="customer-checks" class={tone} data-status={checks.status} aria-live="polite">
      {text(checks)}
    </p>
  );
}
