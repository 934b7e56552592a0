import { nextAttemptAt, webhookTarget, WEBHOOK_FOR_EVENT } from './webhook-policy';

describe('webhook policy', () => {
  const policy = { maxAttempts: 3, delaysMs: [30_000, 300_000], maxRetryAfterMs: 3_600_000 };
  const t0 = new Date('2026-01-01T00:00:00Z');

  it('waits the configured delays, then gives up after the last attempt', () => {
    expect(nextAttemptAt(1, policy, t0, null)).toEqual(new Date('2026-01-01T00:00:30Z'));
    expect(nextAttemptAt(2, policy, t0, null)).toEqual(new Date('2026-01-01T00:05:00Z'));
    expect(nextAttemptAt(3, policy, t0, null)).toBeNull();
  });

  it('uses a Retry-After instead, capped, without adding attempts', () => {
    expect(nextAttemptAt(1, policy, t0, 2000)).toEqual(new Date('2026-01-01T00:00:02Z'));
    expect(nextAttemptAt(1, policy, t0, 86_400_000)).toEqual(new Date('2026-01-01T01:00:00Z'));
    expect(nextAttemptAt(3, policy, t0, 1000)).toBeNull();
  });

  it('repeats the last delay when there are more attempts than delays', () => {
    expect(nextAttemptAt(4, { ...policy, maxAttempts: 6 }, t0, null)).toEqual(new Date('2026-01-01T00:05:00Z'));
  });

  it('sends to notify_url, else the organization default, else nowhere; only for the three spec events', () => {
    expect(webhookTarget('https://a/h', 'https://org/h')).toBe('https://a/h');
    expect(webhookTarget(null, 'https://org/h')).toBe('https://org/h');
    expect(webhookTarget(null, null)).toBeNull();
    expect(WEBHOOK_FOR_EVENT).toEqual({
      OutputProduced: 'transformation.finished',
      ReviewCanceled: 'transformation.review.canceled',
      RunFailed: 'transformation.failed',
    });
  });
});
