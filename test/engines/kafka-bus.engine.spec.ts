import { randomUUID } from 'node:crypto';
import { KafkaBus } from '@app/bus/kafka/kafka-bus';
import { busRecord, messageBusContract } from '../../libs/bus/src/testing/message-bus.contract';
import { describeWithEngine } from '../support/engine-gate';

const waitFor = async (cond: () => boolean, ms = 20000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describeWithEngine('KAFKA_BROKERS', '127.0.0.1:9092', 'Kafka bus', (brokers) => {
  const make = () => new KafkaBus({ brokers: brokers.split(','), clientId: `contract-${randomUUID().slice(0, 8)}`, partitions: 3 });
  jest.setTimeout(60_000);

  messageBusContract('Kafka', async () => ({ bus: make(), topic: `contract-${randomUUID()}` }));

  describe('Kafka specifics', () => {
    it('commits an offset only after its handler returned: the same group resumes at the unfinished record', async () => {
      const topic = `contract-${randomUUID()}`;
      const group = `g-${randomUUID()}`;
      const first = make();
      const seen: string[] = [];
      const sub = await first.subscribe(topic, group, async (r) => {
        if (r.value.type === '2') throw new Error('not durable yet');
        seen.push(r.value.type);
      });
      await first.publish(topic, [busRecord('k', '1'), busRecord('k', '2'), busRecord('k', '3')]);
      await waitFor(() => seen.length === 1);
      await sub.stop();
      await first.close();
      expect(seen).toEqual(['1']);

      const second = make();
      const again: string[] = [];
      const lanes = new Set<string>();
      const s2 = await second.subscribe(topic, group, async (r) => {
        again.push(r.value.type);
        lanes.add(r.lane!);
      });
      await waitFor(() => again.length === 2);
      await s2.stop();
      await second.close();
      expect(again).toEqual(['2', '3']);
      expect([...lanes]).toHaveLength(1); // one key, one partition
    });
  });
});
