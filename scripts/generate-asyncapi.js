#!/usr/bin/env node
/**
 * Writes docs/asyncapi.json, the AsyncAPI 3 description of the topics downstream teams
 * consume, from the TypeScript contract itself (libs/contracts): every run event type and
 * its payload schema, the envelope, the Kafka key and headers. `npm run docs:asyncapi`
 * after changing an event; a test fails when the committed document is stale.
 *
 * It also writes libs/contracts/src/run-event-schemas.json: the same payload schemas (JSON Schema draft 07) that
 * the services check stored events against before folding them (libs/contracts/src/run-event-validation.ts).
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { createGenerator } = require('ts-json-schema-generator');

const root = join(__dirname, '..');
const schemaOf = (file, type) =>
  createGenerator({
    path: join(root, file),
    tsconfig: join(root, 'tsconfig.json'),
    type,
    skipTypeCheck: true,
    additionalProperties: true,
    topRef: false,
  }).createSchema(type);

/** The run events' payload schemas, by type (`properties`) with their shared `definitions`. */
const runEventSchemas = () => schemaOf('libs/contracts/src/run-events.ts', 'RunEventMap');

function build() {
  const events = runEventSchemas();
  const metadata = schemaOf('libs/contracts/src/event-envelope.ts', 'EventMetadata');
  const types = Object.keys(events.properties);
  // The generator writes '#/definitions/X'; AsyncAPI keeps schemas under components.
  const definitions = JSON.parse(JSON.stringify(events.definitions).replace(/#\/definitions\//g, '#/components/schemas/'));
  const { $schema: _s, ...metadataSchema } = metadata;

  const envelope = {
    type: 'object',
    description: 'Every record value: the stored event. Unknown fields must be ignored.',
    required: ['event_id', 'type', 'stream_id', 'revision', 'position', 'recorded_at', 'data', 'metadata'],
    properties: {
      event_id: { type: 'string', format: 'uuid', description: 'Unique per event; the same event sent twice has the same id.' },
      type: { type: 'string', enum: types },
      stream_id: { type: 'string', description: 'run-<run id>; also the record key.' },
      revision: { type: 'integer', minimum: 0, description: 'Order inside the run (0-based, no gaps).' },
      position: { type: 'integer', minimum: 1, description: 'Global order of the event store; increases within a partition.' },
      recorded_at: { type: 'string', format: 'date-time' },
      data: { type: 'object' },
      metadata: { $ref: '#/components/schemas/EventMetadata' },
    },
  };

  const headers = {
    type: 'object',
    properties: {
      'content-type': { type: 'string', const: 'application/json' },
      event_id: { type: 'string' },
      event_type: { type: 'string', enum: types },
      schema_version: { type: 'string', description: 'metadata.schema_version as text' },
      organization_id: { type: 'string' },
      traceparent: { type: 'string', description: 'metadata.traceparent (W3C trace context), when tracing is on' },
      tracestate: { type: 'string', description: 'metadata.tracestate, when there is one' },
    },
  };

  const messages = Object.fromEntries(
    types.map((t) => [
      t,
      {
        name: t,
        title: t,
        contentType: 'application/json',
        headers,
        payload: {
          allOf: [
            { $ref: '#/components/schemas/EventEnvelope' },
            { type: 'object', properties: { type: { const: t }, data: { $ref: `#/components/schemas/${t}` } } },
          ],
        },
        bindings: {
          kafka: {
            key: { type: 'string', description: 'The stream id, run-<run id>: one run, one partition, in order.' },
            bindingVersion: '0.5.0',
          },
        },
      },
    ]),
  );

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Transformation service run events',
      version: '1.0.0',
      description: 'Every fact of every transformation run, in order per run. See docs/events.md for delivery and versioning rules.',
    },
    defaultContentType: 'application/json',
    servers: { kafka: { host: 'kafka:9092', protocol: 'kafka', description: 'KAFKA_BROKERS of the deployment' } },
    channels: {
      runEvents: {
        address: 'transformation.run.events.v1',
        description: 'All run events, keyed by stream id. At-least-once: deduplicate by event_id, or by position per partition.',
        messages: Object.fromEntries(types.map((t) => [t, { $ref: `#/components/messages/${t}` }])),
        bindings: { kafka: { partitions: 6, bindingVersion: '0.5.0' } },
      },
    },
    operations: {
      consumeRunEvents: {
        action: 'receive',
        channel: { $ref: '#/channels/runEvents' },
        summary: 'Downstream teams consume run events with their own consumer group.',
        messages: types.map((t) => ({ $ref: `#/channels/runEvents/messages/${t}` })),
      },
    },
    components: {
      messages,
      schemas: { EventEnvelope: envelope, EventMetadata: metadataSchema, ...definitions },
    },
  };
}

const render = () => `${JSON.stringify(build(), null, 2)}\n`;
const renderRunEventSchemas = () => `${JSON.stringify(runEventSchemas(), null, 2)}\n`;
module.exports = { render, renderRunEventSchemas };
if (require.main === module) {
  writeFileSync(join(root, 'docs', 'asyncapi.json'), render());
  console.log('wrote docs/asyncapi.json');
  writeFileSync(join(root, 'libs', 'contracts', 'src', 'run-event-schemas.json'), renderRunEventSchemas());
  console.log('wrote libs/contracts/src/run-event-schemas.json');
}
