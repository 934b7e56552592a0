import { runBadge, type BadgeRun } from '../run-badge';

/** A run's badge: where it stands, in the colour of its outcome (run-badge.ts). */
export function RunBadge({ run }: { run: BadgeRun }) {
  const { text, tone } = runBadge(run);
  return <span class={`badge tone-${tone}`}>{text}</span>;
}
