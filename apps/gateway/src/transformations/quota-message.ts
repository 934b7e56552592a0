/**
 * The message of the 429 `review_preparation_quota_exceeded`: how the quota stands, then what can still be done. An
 * administrator may set the quota below what was already used (or to 0), so "used all 0" is never written: a quota of 0
 * allows none, and use past the quota says both numbers.
 */
export function quotaExceededMessage(quota: number, used: number): string {
  const preparations = (n: number) => `${n} review preparation${n === 1 ? '' : 's'}`;
  const standing =
    quota === 0
      ? "The organization's quota allows no review preparations."
      : used > quota
        ? `The organization has used ${preparations(used)}, more than its quota of ${quota}.`
        : quota === 1
          ? 'The organization has used the 1 review preparation of its quota.'
          : `The organization has used all ${quota} review preparations of its quota.`;
  return `${standing} Dry runs are still possible; ask an administrator to raise the quota.`;
}
