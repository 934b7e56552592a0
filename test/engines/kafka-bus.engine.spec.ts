import { randomUUID } from 'node:crypto';
import { Kafka } from 'kafkajs';
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

    it("reports a group's lag per partition (end offset minus committed offset) and whether its consumer runs", async () => {
      const topic = `contract-${randomUUID()}`;
      const group = `g-${randomUUID()}`;
      const bus = make();
      const seen: string[] = [];
      const sub = await bus.subscribe(topic, group, async (r) => {
        if (r.value.type === 'stop') throw new Error('held back');
        seen.push(r.value.type);
      });
      expect(sub.running()).toBe(true);
      await bus.publish(topic, [busRecord('k', '1'), busRecord('k', 'stop'), busRecord('k', '3')]);
      await waitFor(() => seen.length === 1);
      const lag = await bus.consumerLag(topic, group);
      expect(lag).toHaveLength(3); // one entry per partition
      expect(lag.reduce((sum, l) => sum + l.behind, 0)).toBe(2); // "stop" and "3" are not committed
      await sub.stop();
      expect(sub.running()).toBe(false);
      await bus.close();
    });

    it('a handler working past the session timeout keeps its partition: a member joining meanwhile does not get the record again', async () => {
      const topic = `contract-${randomUUID()}`;
      const group = `g-${randomUUID()}`;
      const slow = new KafkaBus({ brokers: brokers.split(','), clientId: 'slow', partitions: 1, sessionTimeoutMs: 6000 });
      const other = new KafkaBus({ brokers: brokers.split(','), clientId: 'other', partitions: 1, sessionTimeoutMs: 6000 });
      const seen: string[] = [];
      const s1 = await slow.subscribe(topic, group, async (r) => {
        seen.push(`slow ${r.value.type}`);
        await new Promise((done) => setTimeout(done, 10_000)); // longer than the 6 s session
      });
      await slow.publish(topic, [busRecord('k', '1')]);
      await waitFor(() => seen.length === 1);
      const s2 = await other.subscribe(topic, group, async (r) => void seen.push(`other ${r.value.type}`));
      await new Promise((done) => setTimeout(done, 14_000));
      await s2.stop();
      await s1.stop();
      await other.close();
      await slow.close();
      expect(seen).toEqual(['slow 1']);
    });

    it('records published with headers (a dead letter) carry them, beside the event headers', async () => {
      const topic = `dlq-${randomUUID()}`;
      const bus = make();
      await bus.publish(topic, [
        { ...busRecord('run-1', 'Poisoned'), headers: { dead_letter_group: 'output', dead_letter_attempts: '3' } },
      ]);
      await bus.close();
      const kafka = new Kafka({ brokers: brokers.split(','), clientId: 'dlq-reader' });
      const consumer = kafka.consumer({ groupId: `g-${randomUUID()}` });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const headers: Record<string, string>[] = [];
      await consumer.run({
        eachMessage: async ({ message }) =>
          void headers.push(Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]))),
      });
      await waitFor(() => headers.length === 1);
      await consumer.disconnect();
      expect(headers[0]).toMatchObject({ dead_letter_group: 'output', dead_letter_attempts: '3', event_type: 'Poisoned' });
    });
  });
});
