import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BusRecord, MessageBus } from '@app/bus';
import { TOPICS } from '@app/contracts';
import { SqliteEventStore } from '@app/event-store';
import { republishEvents } from './republish-events';

class RecordingBus implements MessageBus {
  readonly sent: Array<{ topic: string; record: BusRecord }> = [];
  async publish(topic: string, records: BusRecord[]) {
    for (const record of records) this.sent.push({ topic, record });
  }
  async subscribe(): Promise<never> {
    throw new Error('not used');
  }
  async close() {}
}

const meta = { organization_id: 'o', correlation_id: 'c', causation_id: 'c', occurred_at: '', schema_version: 1 };

describe('republishEvents', () => {
  let store: SqliteEventStore;
  beforeEach(async () => {
    store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'rep-')), 'events.sqlite'));
    // positions 1..6: run a (A0, A1, A2), run b (B0, B1), run a (A3)
    await store.appendToStream(
      'run-a',
      [0, 1, 2].map((i) => ({ event_id: `a${i}`, type: `A${i}`, data: {}, metadata: meta })),
      'no_stream',
    );
    await store.appendToStream(
      'run-b',
      [0, 1].map((i) => ({ event_id: `b${i}`, type: `B${i}`, data: {}, metadata: meta })),
      'no_stream',
    );
    await store.appendToStream('run-a', [{ event_id: 'a3', type: 'A3', data: {}, metadata: meta }], 2);
  });
  afterEach(() => store.close());

  it('sends the range, both ends included, in order, keyed by stream, on the run-events topic', async () => {
    const bus = new RecordingBus();
    const report = await republishEvents(store, bus, { from: 2, to: 5 });
    expect(bus.sent.map((s) => [s.topic, s.record.key, s.record.value.type])).toEqual([
      [TOPICS.runEvents, 'run-a', 'A1'],
      [TOPICS.runEvents, 'run-a', 'A2'],
      [TOPICS.runEvents, 'run-b', 'B0'],
      [TOPICS.runEvents, 'run-b', 'B1'],
    ]);
    expect(report).toEqual({ events: 4, first: 2, last: 5 });
  });

  it('can be limited to one run, and a dry run sends nothing but counts the same', async () => {
    const bus = new RecordingBus();
    expect(await republishEvents(store, bus, { from: 1, to: 6, runId: 'a', dryRun: true })).toEqual({ events: 4, first: 1, last: 6 });
    expect(bus.sent).toHaveLength(0);
    await republishEvents(store, bus, { from: 1, to: 6, runId: 'a' });
    expect(bus.sent.map((s) => s.record.value.type)).toEqual(['A0', 'A1', 'A2', 'A3']);
  });

  it('refuses an empty or backwards range', async () => {
    await expect(republishEvents(store, new RecordingBus(), { from: 5, to: 2 })).rejects.toThrow('Need 1 <= --from <= --to');
    await expect(republishEvents(store, new RecordingBus(), { from: 0, to: 2 })).rejects.toThrow('Need 1 <= --from <= --to');
  });
});

describe('events:republish command', () => {
  it('refuses, and says why, when the bus is the embedded one; rejects a bad range: usage errors (exit 2)', async () => {
    const { runCli } = await import('../cli-program');
    const saved = { ...process.env };
    const errors: string[] = [];
    const collect = (m: unknown) => {
      errors.push(String(m));
      return true;
    };
    const consoleSpy = jest.spyOn(console, 'error').mockImplementation(collect);
    const stderrSpy = jest.spyOn(process.stderr, 'write').mockImplementation(collect);
    try {
      process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'rep-cli-'));
      delete process.env.BUS;
      expect(await runCli(['events:republish', '--from', '1', '--to', '2'])).toBe(2);
      expect(errors.join('\n')).toContain('events:republish sends to Kafka (BUS=kafka, KAFKA_BROKERS)');
      expect(await runCli(['events:republish', '--from', 'x', '--to', '2'])).toBe(2);
      expect(errors.join('\n')).toContain("option '--from <position>' argument 'x' is invalid");
      expect(await runCli(['events:republish', '--from', '1'])).toBe(2);
      expect(errors.join('\n')).toContain("required option '--to <position>' not specified");
      expect(await runCli(['events:republish', '--from', '5', '--to', '2'])).toBe(2);
      expect(errors.join('\n')).toContain('--to (2) must not be below --from (5)');
    } finally {
      consoleSpy.mockRestore();
      stderrSpy.mockRestore();
      process.env = saved;
    }
  });
});

describe('events:republish against a Kafka it cannot reach', () => {
  it("keeps the Kafka client's own log lines out of the terminal and says the error once (exit 1)", async () => {
    const { runCli } = await import('../cli-program');
    const dataDir = mkdtempSync(join(tmpdir(), 'rep-kafka-'));
    const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
    await store.appendToStream('run-a', [{ event_id: 'a0', type: 'A0', data: {}, metadata: meta }], 'no_stream');
    await store.close();
    const saved = { ...process.env };
    let output = '';
    const collect = (m: unknown) => {
      output += `${String(m)}\n`;
      return true;
    };
    const spies = [
      jest.spyOn(console, 'log').mockImplementation(collect),
      jest.spyOn(console, 'error').mockImplementation(collect),
      jest.spyOn(process.stdout, 'write').mockImplementation(collect),
      jest.spyOn(process.stderr, 'write').mockImplementation(collect),
    ];
    try {
      Object.assign(process.env, { DATA_DIR: dataDir, BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:1' });
      expect(await runCli(['events:republish', '--from', '1', '--to', '1'])).toBe(1);
    } finally {
      for (const spy of spies) spy.mockRestore();
      process.env = saved;
    }
    expect(output).not.toContain('kafkajs');
    expect(output.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: Kafka at 127\.0\.0\.1:1 \(KAFKA_BROKERS\) failed: .*ECONNREFUSED/),
    ]);
  }, 60_000);
});
