import { deliveryAttemptEntry } from './delivery-log.port';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();

describe('deliveryAttemptEntry', () => {
  const attempted = {
    delivery_id: 'd1',
    event: 'transformation.finished' as const,
    attempt: 2,
    outcome: 'failed' as const,
    status_code: 500,
    error: 'HTTP 500',
    attempted_at: at(0),
    next_attempt_at: null,
  };
  it('keys the entry by delivery and attempt, and takes what an older event lacks from the schedule (sent_at: its end)', () => {
    expect(deliveryAttemptEntry('run-1', 'org-a', attempted, 'https://scheduled')).toEqual({
      id: 'd1:2',
      organization_id: 'org-a',
      run_id: 'run-1',
      delivery_id: 'd1',
      event: 'transformation.finished',
      url: 'https://scheduled',
      attempt: 2,
      outcome: 'failed',
      status_code: 500,
      error: 'HTTP 500',
      duration_ms: null,
      response_excerpt: null,
      sent_at: at(0),
    });
    expect(
      deliveryAttemptEntry(
        'run-1',
        'org-a',
        { ...attempted, url: 'https://sent', duration_ms: 7, response_excerpt: 'x', sent_at: at(-1) },
        'https://scheduled',
      ),
    ).toMatchObject({ url: 'https://sent', duration_ms: 7, response_excerpt: 'x', sent_at: at(-1) });
  });
});
