import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandBus } from '@nestjs/cqrs';
import type { StoredEvent } from '@app/contracts';
import { SqliteDeadLetterStore } from '@app/dead-letters';
import type { ApplyRunCommand } from '@app/run-commands';
import { RelayRuntime } from './relay-runtime';

const event: StoredEvent = {
  event_id: 'e-big',
  type: 'SourceParsed',
  data: { source_headers: ['x'.repeat(10)] },
  stream_id: 'run-r1',
  revision: 2,
  position: 17,
  recorded_at: '2026-01-01T00:00:00.000Z',
  metadata: {
    organization_id: 'o1',
    correlation_id: 'req',
    causation_id: 'e1',
    occurred_at: '2026-01-01T00:00:00.000Z',
    schema_version: 1,
  },
};

describe('RelayRuntime: an event Kafka refuses for good', () => {
  it('is kept as a dead letter of the relay and fails its run (no consumer will ever see it)', async () => {
    const deadLetters = new SqliteDeadLetterStore(join(mkdtempSync(join(tmpdir(), 'relay-refused-')), 'events.sqlite'));
    const commands: ApplyRunCommand[] = [];
    const commandBus = { execute: async (c: ApplyRunCommand) => void commands.push(c) } as unknown as CommandBus;
    const runtime = new RelayRuntime(null as never, null as never, null as never, null as never, deadLetters, commandBus);
    const tooLarge = Object.assign(new Error('message larger than the max message size'), { name: 'KafkaJSProtocolError' });
    await (runtime as unknown as { refused(e: StoredEvent, err: Error): Promise<void> }).refused(event, tooLarge);
    expect(await deadLetters.get('relay/e-big')).toMatchObject({
      group: 'relay',
      event,
      error: { name: 'KafkaJSProtocolError', message: 'message larger than the max message size' },
    });
    expect(commands.map((c) => [c.runId, c.command.type, (c.command as { error: { code: string } }).error.code])).toEqual([
      ['r1', 'FailRun', 'transformation_processing_failed'],
    ]);
    await deadLetters.close();
  });
});
