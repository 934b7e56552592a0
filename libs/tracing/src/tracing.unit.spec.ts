import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { appNameOf, tracingWanted } from './tracing-env';
import { inEventSpan, inRunTrace, isTracing, latestTrace, stopTracing, traceMetadata } from './trace-context';
import { startInMemoryTracing, type InMemoryTracing } from './testing/in-memory-tracing';

const PARENT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=1' };
const event = (metadata: object = {}) => ({
  event_id: 'e1',
  type: 'SourceParsed',
  stream_id: 'run-r1',
  position: 7,
  revision: 2,
  metadata,
});
const where = { topic: 'transformation.run.events.v1', lane: '3', runId: 'r1' };

describe('tracingWanted: off unless OTEL_TRACES_EXPORTER names an exporter', () => {
  it.each([
    [{}, false],
    [{ OTEL_TRACES_EXPORTER: '' }, false],
    [{ OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp,none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: ' console , otlp ' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false],
  ])('%j -> %s', (env, wanted) => expect(tracingWanted(env)).toBe(wanted));

  it('names the service after the app whose main.js runs', () => {
    expect(appNameOf('/srv/dist/apps/notifier/src/main.js')).toBe('notifier');
    expect(appNameOf('/work/apps/gateway/src/main.ts')).toBe('gateway');
    expect(appNameOf('/usr/bin/jest')).toBe('transformation-service');
    expect(appNameOf(undefined)).toBe('transformation-service');
  });
});

describe('trace context helpers, tracing off', () => {
  it('load nothing of OpenTelemetry: what every process imports names no OpenTelemetry package (the SDK is required only when wanted)', () => {
    for (const file of ['index.ts', 'trace-context.ts', 'tracing-env.ts', 'register.ts']) {
      const imports = [...readFileSync(join(__dirname, file), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
      expect({ file, imports: imports.filter((i) => !i.startsWith('./')) }).toEqual({ file, imports: [] });
    }
  });

  it('carry nothing and run the work as it is', async () => {
    expect(isTracing()).toBe(false);
    expect(traceMetadata()).toEqual({});
    expect(await inEventSpan('mapping', event(PARENT), where, async () => trace.getActiveSpan())).toBeUndefined();
    expect(await inRunTrace(PARENT, 'run X', {}, async () => traceMetadata())).toEqual({});
    await expect(stopTracing()).resolves.toBeUndefined();
  });
});

describe('trace context helpers, tracing on', () => {
  let tracing: InMemoryTracing;
  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.stop());
  beforeEach(() => tracing.exporter.reset());

  it('traceMetadata is the active span as W3C traceparent (and tracestate), nothing without one', () => {
    expect(traceMetadata()).toEqual({});
    const span = trace.getTracer('t').startSpan('request');
    const inside = context.with(trace.setSpan(context.active(), span), () => traceMetadata());
    span.end();
    const { traceId, spanId } = span.spanContext();
    expect(inside).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
  });

  it("a consumer span's parent is the event's metadata, its attributes the event's, its children carry it", async () => {
    const carried = await inEventSpan('mapping', event(PARENT), where, async () => traceMetadata());
    const [span] = tracing.spans();
    expect(span.name).toBe('mapping SourceParsed');
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span.attributes).toMatchObject({
      'messaging.consumer.group.name': 'mapping',
      'messaging.destination.name': 'transformation.run.events.v1',
      'messaging.destination.partition.id': '3',
      'messaging.message.id': 'e1',
      'run.event.type': 'SourceParsed',
      'run.event.position': 7,
      'run.stream': 'run-r1',
      'run.id': 'r1',
    });
    expect(carried).toEqual({ traceparent: `00-0af7651916cd43dd8448eb211c80319c-${span.spanContext().spanId}-01`, tracestate: 'vendor=1' });
  });

  it('an event without trace context starts a trace of its own, whatever span is active around it', async () => {
    const outer = trace.getTracer('t').startSpan('outer');
    await context.with(trace.setSpan(context.active(), outer), () => inEventSpan('projector', event(), where, async () => undefined));
    outer.end();
    const span = tracing.spans().find((s) => s.name === 'projector SourceParsed')!;
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });

  it('a failing handling is an error span, and the error goes on', async () => {
    await expect(
      inEventSpan('output', event(PARENT), where, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    const [span] = tracing.spans();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk full' });
    expect(span.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('stopTracing exports what is left and ends tracing (a bootstrap that exits by itself calls it first)', async () => {
    const span = trace.getTracer('t').startSpan('last');
    span.end();
    await stopTracing();
    expect(isTracing()).toBe(false);
    expect(traceMetadata()).toEqual({});
    tracing = startInMemoryTracing();
  });

  it("latestTrace is the latest event's that carries one", () => {
    const other = { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' };
    expect(latestTrace([{ metadata: PARENT }, { metadata: other }, { metadata: {} }])).toEqual(other);
    expect(latestTrace([{ metadata: {} }])).toBeUndefined();
  });
});
