import type { StoredEvent } from '@app/contracts';
import type { BusRecord, MessageBus, RecordHandler } from '@app/bus';
import { ConsumerHost } from './consumer-host';
import type { EventConsumer } from './event-consumer';

const event = (position: number): StoredEvent => ({
  event_id: `e${position}`,
  type: 'T',
  data: {},
  stream_id: `run-${position}`,
  revision: 0,
  position,
  recorded_at: '',
  metadata: { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 },
});

/** A bus that hands the test the subscriber's handler, to deliver records in any order. */
class ManualBus implements MessageBus {
  handler: RecordHandler | null = null;
  async publish(): Promise<void> {
    throw new Error('not used');
  }
  async subscribe(_t: string, _g: string, handler: RecordHandler) {
    this.handler = handler;
    return { stop: async () => undefined };
  }
  async close(): Promise<void> {}
  deliver(record: BusRecord) {
    return this.handler!(record);
  }
}

describe('ConsumerHost', () => {
  it('keeps one checkpoint per lane: a lower position on another partition is new, the same lane replayed is not', async () => {
    const stored = new Map<string, number>([
      ['', 0],
      ['0', 4],
      ['1', 0],
    ]);
    const handled: Array<[number, string]> = [];
    const consumer: EventConsumer = {
      group: 'g',
      checkpoint: async (lane = '') => stored.get(lane) ?? 0,
      handle: async (e, lane = '') => {
        handled.push([e.position, lane]);
        stored.set(lane, e.position);
      },
    };
    const bus = new ManualBus();
    await new ConsumerHost(bus).start(consumer);

    await bus.deliver({ key: 'a', value: event(4), lane: '0' }); // at the stored checkpoint: already handled
    await bus.deliver({ key: 'a', value: event(9), lane: '0' });
    await bus.deliver({ key: 'b', value: event(6), lane: '1' }); // lower than lane 0's 9, still new
    await bus.deliver({ key: 'a', value: event(9), lane: '0' }); // redelivered
    await bus.deliver({ key: 'c', value: event(2) }); // a bus without lanes

    expect(handled).toEqual([
      [9, '0'],
      [6, '1'],
      [2, ''],
    ]);
  });
});
