import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ORGANIZATION_EVENT_TYPES, RUN_EVENT_TYPES, TOPICS } from '@app/contracts';

const root = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render, renderRunEventSchemas } = require(join(root, 'scripts/generate-asyncapi.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Deduplicator, describeEvent } = require(join(root, 'examples/run-events-consumer/consumer.js'));

describe('documents for downstream teams', () => {
  it('docs/asyncapi.json is what the generator writes from the contract', () => {
    expect(readFileSync(join(root, 'docs/asyncapi.json'), 'utf8')).toBe(render());
  }, 60_000);

  it('libs/contracts/src/run-event-schemas.json (what stored events are checked against) is what the generator writes', () => {
    expect(readFileSync(join(root, 'libs/contracts/src/run-event-schemas.json'), 'utf8')).toBe(renderRunEventSchemas());
  }, 60_000);

  it('describes every run event type on the run-events topic, with a payload schema each', () => {
    const doc = JSON.parse(readFileSync(join(root, 'docs/asyncapi.json'), 'utf8'));
    expect(doc.channels.runEvents.address).toBe(TOPICS.runEvents);
    expect(Object.keys(doc.components.messages).sort()).toEqual([...RUN_EVENT_TYPES].sort());
    for (const t of RUN_EVENT_TYPES) expect(doc.components.schemas[t]?.type).toBe('object');
    expect(doc.components.schemas.SourceUploaded.required).toEqual(['size_bytes', 'uploaded_at']);
  });

  it('docs/events.md names the topic and every event type', () => {
    const md = readFileSync(join(root, 'docs/events.md'), 'utf8');
    expect(md).toContain(TOPICS.runEvents);
    // A table row that starts with the type (Prettier pads table cells, so spaces vary).
    for (const t of RUN_EVENT_TYPES) expect(md).toMatch(new RegExp(`^\\|\\s*${t}\\s*\\|`, 'm'));
  });

  it('docs/events.md has every organization (audit) event type, and none of them is on the run-events topic', () => {
    const md = readFileSync(join(root, 'docs/events.md'), 'utf8');
    for (const t of ORGANIZATION_EVENT_TYPES) expect(md).toMatch(new RegExp(`^\\|\\s*${t}\\s*\\|`, 'm'));
    const doc = JSON.parse(readFileSync(join(root, 'docs/asyncapi.json'), 'utf8'));
    for (const t of ORGANIZATION_EVENT_TYPES) expect(doc.components.messages[t]).toBeUndefined();
  });

  it('the example consumer ignores redeliveries per partition and unknown types', () => {
    const d = new Deduplicator();
    expect([d.firstTime(0, 5), d.firstTime(0, 5), d.firstTime(1, 3), d.firstTime(0, 4), d.firstTime(0, 9)]).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
    const event = (type: string, data: object) => ({ type, data, stream_id: 'run-r1', metadata: { organization_id: 'o1' } });
    expect(describeEvent(event('OutputProduced', { rows_written: 3, output_format: 'csv', rows_with_problems: 1 }))).toBe(
      'run r1 finished: 3 rows as csv, 1 with problems',
    );
    expect(describeEvent(event('SomethingNew', {}))).toBeNull();
  });
});
