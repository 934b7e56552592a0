#!/usr/bin/env node
/**
 * An example downstream consumer of the run-events topic: it follows every run and prints
 * one line when a run is created, finishes, is canceled or fails. Copy it as a start.
 *
 *   KAFKA_BROKERS=localhost:9092 GROUP_ID=my-team node examples/run-events-consumer/consumer.js
 *
 * What every consumer should do, shown here:
 * - use its own consumer group (GROUP_ID), so it gets every event independently of us;
 * - expect redelivery (at least once) and ignore it: positions increase within a
 *   partition, so an event at or below the last handled position of its partition is a
 *   duplicate (keep that position with your own data to survive restarts);
 * - commit an offset only after its own work for the event is done;
 * - ignore event types and fields it does not know (docs/events.md, versioning).
 */
const { Kafka, logLevel } = require('kafkajs');

const TOPIC = 'transformation.run.events.v1';

/** Remembers the last handled position per partition. */
class Deduplicator {
  constructor() {
    this.handled = new Map();
  }
  /** True the first time an event is seen; false for a redelivery. */
  firstTime(partition, position) {
    const last = this.handled.get(partition) ?? 0;
    if (position <= last) return false;
    this.handled.set(partition, position);
    return true;
  }
}

/** A line for the events this example cares about, null for the others (including unknown types). */
function describeEvent(event) {
  const run = event.stream_id.replace(/^run-/, '');
  const org = event.metadata?.organization_id;
  switch (event.type) {
    case 'RunCreated':
      return `run ${run} created (org ${org}, ${event.data.input_source}, schema ${event.data.schema?.name})`;
    case 'OutputProduced':
      return `run ${run} finished: ${event.data.rows_written} rows as ${event.data.output_format}, ${event.data.rows_with_problems} with problems`;
    case 'ReviewCanceled':
      return `run ${run} canceled in review`;
    case 'RunFailed':
      return `run ${run} failed: ${event.data.error?.code} (${event.data.error?.stage})`;
    default:
      return null;
  }
}

async function main() {
  const brokers = (process.env.KAFKA_BROKERS || '').split(',').filter(Boolean);
  if (brokers.length === 0) throw new Error('Set KAFKA_BROKERS (e.g. localhost:9092)');
  const kafka = new Kafka({ clientId: 'run-events-example', brokers, logLevel: logLevel.WARN });
  const consumer = kafka.consumer({ groupId: process.env.GROUP_ID || 'run-events-example' });
  const seen = new Deduplicator();
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const event = JSON.parse(message.value.toString('utf8'));
      if (seen.firstTime(partition, event.position)) {
        const line = describeEvent(event);
        if (line) console.log(line);
      }
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    },
  });
  const stop = async () => {
    await consumer.disconnect();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

module.exports = { Deduplicator, describeEvent };
if (require.main === module)
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
