import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { runStreamId, type NewEvent, type RunEvent, type StoredEvent } from '@app/contracts';
import { SqliteEventStore } from '@app/event-store';
import { HISTORY, T0, parsed } from '@app/domain/testing/run-history.fixtures';
import { startInMemoryTracing, type InMemoryTracing } from '@app/tracing/testing/in-memory-tracing';
import { ApplyRunCommand } from './apply-run-command';
import { ApplyRunCommandHandler } from './apply-run-command.handler';

/** The trace context new events carry in their metadata: the active span's (W3C), and nothing when tracing is off. */
const RUN = 'r1';
const ctx = { organizationId: 'o1', correlationId: 'req-9', causationId: 'evt-3', idempotencyKey: 'evt-3/parsed' };
const RUN_TRACE = '0af7651916cd43dd8448eb211c80319c';
const RUN_SPAN = 'b7ad6b7169203331';
const toNew =
  (metadata: object) =>
  (e: RunEvent, i: number): NewEvent => ({
    event_id: `given-${i}`,
    type: e.type,
    data: e.data,
    metadata: { organization_id: 'o1', correlation_id: 'c', causation_id: 'c', occurred_at: T0, schema_version: 1, ...metadata },
  });

describe('ApplyRunCommandHandler: trace context in the metadata of new events', () => {
  let store: SqliteEventStore;
  let handler: ApplyRunCommandHandler;
  const parse = () => handler.execute(new ApplyRunCommand(RUN, { type: 'RecordParse', parse: parsed.data }, ctx));
  const appended = async (): Promise<StoredEvent> => (await store.readStream(runStreamId(RUN)))[2];
  const inSpan = <T>(traceId: string | null, fn: () => Promise<T>) => {
    const parent = traceId
      ? trace.setSpanContext(context.active(), { traceId, spanId: 'aaaaaaaaaaaaaaaa', traceFlags: 1, isRemote: true })
      : context.active();
    const span = trace.getTracer('test').startSpan('request', { kind: SpanKind.SERVER }, parent);
    return context
      .with(trace.setSpan(context.active(), span), fn)
      .finally(() => span.end())
      .then((r) => ({ r, span }));
  };

  beforeEach(async () => {
    store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'apply-trace-')), 'events.sqlite'), 20);
    handler = new ApplyRunCommandHandler(store);
  });
  afterEach(() => store.close());

  describe('tracing off', () => {
    it('no traceparent, even with a span context active and a traced run', async () => {
      await store.appendToStream(
        runStreamId(RUN),
        HISTORY.processing.map(toNew({ traceparent: `00-${RUN_TRACE}-${RUN_SPAN}-01` })),
        'no_stream',
      );
      const parent = trace.setSpanContext(context.active(), { traceId: RUN_TRACE, spanId: RUN_SPAN, traceFlags: 1 });
      const result = await context.with(parent, parse);
      expect((await appended()).metadata).not.toHaveProperty('traceparent');
      expect((await appended()).metadata).not.toHaveProperty('tracestate');
      expect(result).not.toHaveProperty('trace');
    });
  });

  describe('tracing on', () => {
    let tracing: InMemoryTracing;
    beforeAll(() => {
      tracing = startInMemoryTracing();
    });
    afterAll(() => tracing.stop());
    beforeEach(() => tracing.exporter.reset());

    it('a run without a trace yet: its events carry the active span', async () => {
      await store.appendToStream(runStreamId(RUN), HISTORY.processing.map(toNew({})), 'no_stream');
      const { r: result, span } = await inSpan(null, parse);
      const { traceId, spanId } = span.spanContext();
      expect((await appended()).metadata.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(result.trace).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
      expect(tracing.spans().map((s) => s.name)).toEqual(['request']); // no span of its own
    });

    it('no active span and no traced run: no traceparent', async () => {
      await store.appendToStream(runStreamId(RUN), HISTORY.processing.map(toNew({})), 'no_stream');
      await parse();
      expect((await appended()).metadata).not.toHaveProperty('traceparent');
    });

    it("a span of the run's own trace (a consumer's): its events carry that span", async () => {
      await store.appendToStream(
        runStreamId(RUN),
        HISTORY.processing.map(toNew({ traceparent: `00-${RUN_TRACE}-${RUN_SPAN}-01` })),
        'no_stream',
      );
      const { span } = await inSpan(RUN_TRACE, parse);
      expect((await appended()).metadata.traceparent).toBe(`00-${RUN_TRACE}-${span.spanContext().spanId}-01`);
      expect(tracing.spans().map((s) => s.name)).toEqual(['request']);
    });

    it("a request outside the run's trace: a span under the run's latest traced event, linked to the request", async () => {
      const carried = { traceparent: `00-${RUN_TRACE}-${RUN_SPAN}-01`, tracestate: 'vendor=1' };
      await store.appendToStream(runStreamId(RUN), HISTORY.processing.map(toNew(carried)), 'no_stream');
      const { span: request } = await inSpan(null, parse);
      const command = tracing.spans().find((s) => s.name === 'run RecordParse')!;
      expect(command.spanContext().traceId).toBe(RUN_TRACE);
      expect(command.parentSpanContext?.spanId).toBe(RUN_SPAN);
      expect(command.links.map((l) => l.context.spanId)).toEqual([request.spanContext().spanId]);
      expect(command.attributes).toMatchObject({ 'run.id': RUN, 'run.command': 'RecordParse' });
      expect((await appended()).metadata).toMatchObject({
        traceparent: `00-${RUN_TRACE}-${command.spanContext().spanId}-01`,
        tracestate: 'vendor=1',
      });
    });
  });
});
