import type { StoredEvent } from '@app/contracts';
import { recordHeaders } from './kafka-bus';

const event = (metadata: Partial<StoredEvent['metadata']> = {}): StoredEvent => ({
  event_id: 'e1',
  type: 'SourceParsed',
  data: {},
  stream_id: 'run-r1',
  revision: 2,
  position: 9,
  recorded_at: '2026-01-01T00:00:00.000Z',
  metadata: {
    organization_id: 'o1',
    correlation_id: 'c',
    causation_id: 'c',
    occurred_at: '2026-01-01T00:00:00.000Z',
    schema_version: 1,
    ...metadata,
  },
});

describe('Kafka record headers', () => {
  it('carry the W3C trace context of the event, under the standard names, when its metadata has it', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(recordHeaders(event({ traceparent, tracestate: 'vendor=1' }))).toEqual({
      'content-type': 'application/json',
      event_id: 'e1',
      event_type: 'SourceParsed',
      schema_version: '1',
      organization_id: 'o1',
      traceparent,
      tracestate: 'vendor=1',
    });
  });

  it('have no trace headers when the event has no trace context (tracing off)', () => {
    const headers = recordHeaders(event());
    expect(headers).not.toHaveProperty('traceparent');
    expect(headers).not.toHaveProperty('tracestate');
  });
});
