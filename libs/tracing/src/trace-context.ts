import {
  type Context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C trace context as events carry it in their metadata (and so in Kafka headers):
 * `traceparent` and `tracestate`, exactly as the HTTP headers of the same names.
 */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** Our tracer's name (instrumentation scope). */
export const TRACER_NAME = 'transformation-service';

/** Always W3C for metadata, whatever OTEL_PROPAGATORS says for HTTP: the fields are named after its headers. */
const w3c = new W3CTraceContextPropagator();

let tracing = false;

/** True once the SDK is started in this process (see tracing-sdk.ts); every helper below is a pass-through otherwise. */
export const isTracing = (): boolean => tracing;

/** For tracing-sdk.ts only. */
export const markTracing = (on: boolean): void => {
  tracing = on;
};

/** The active trace context as metadata fields; `{}` when tracing is off or no span is active. */
export function traceMetadata(ctx: Context = context.active()): TraceCarrier {
  if (!tracing) return {};
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  const out: TraceCarrier = {};
  if (carrier.traceparent) out.traceparent = carrier.traceparent;
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  return out;
}

/** The context whose (remote) parent is the one a carrier names; `base` unchanged when it names none. */
export function contextFrom(carrier: TraceCarrier | null | undefined, base: Context = context.active()): Context {
  if (!carrier?.traceparent) return base;
  const fields: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return w3c.extract(base, fields, defaultTextMapGetter);
}

/** The trace context of the latest event that carries one (the run's trace), if any. */
export function latestTrace(events: ReadonlyArray<{ metadata: TraceCarrier }>): TraceCarrier | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const { traceparent, tracestate } = events[i].metadata;
    if (traceparent) return tracestate ? { traceparent, tracestate } : { traceparent };
  }
  return undefined;
}

const tracer = () => trace.getTracer(TRACER_NAME);

/** Runs `fn` in a span; the span records a thrown error and ends when `fn` settles. */
async function inSpan<T>(span: Span, ctx: Context, fn: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(ctx, span), fn);
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/** What a consumer span describes: one consumer group's handling of one stored event. */
export interface ConsumedEvent {
  event_id: string;
  type: string;
  stream_id: string;
  position: number;
  revision: number;
  metadata: TraceCarrier;
}

/**
 * Runs a consumer group's handling of an event in a CONSUMER span named `<group> <type>`,
 * whose parent is the trace context the event's metadata carries: the commands issued
 * while handling it (the next events) carry this span as theirs, so one run is one trace.
 * Attributes follow the messaging conventions where they fit (the destination is the run
 * events topic; the lane is the partition), plus the run's own.
 */
export function inEventSpan<T>(
  group: string,
  event: ConsumedEvent,
  attributes: { topic: string; lane: string; runId: string | null },
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracing) return fn();
  // Only the event says where it comes from: whatever happens to be active here (the
  // in-process bus may deliver inside the appending request) is not its parent.
  const parent = contextFrom(event.metadata, ROOT_CONTEXT);
  const span = tracer().startSpan(
    `${group} ${event.type}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': attributes.topic,
        'messaging.consumer.group.name': group,
        'messaging.message.id': event.event_id,
        ...(attributes.lane ? { 'messaging.destination.partition.id': attributes.lane } : {}),
        'run.event.type': event.type,
        'run.event.position': event.position,
        'run.event.revision': event.revision,
        'run.stream': event.stream_id,
        ...(attributes.runId ? { 'run.id': attributes.runId } : {}),
      },
    },
    parent,
  );
  return inSpan(span, parent, fn);
}

/**
 * Makes `fn`'s active context part of the run's trace (`runTrace`: the context of the
 * run's latest traced event), so what it appends and calls joins the run's one trace.
 * When the active span already belongs to that trace (a consumer handling the run's
 * event), or the run has no trace yet (it is being created), `fn` runs as it is. Otherwise
 * (an HTTP request about an existing run, a scheduler's poll) `fn` runs in a span named
 * `name` under the run's trace, linked to the active span if there is one.
 */
export function inRunTrace<T>(
  runTrace: TraceCarrier | null | undefined,
  name: string,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracing || !runTrace?.traceparent) return fn();
  const active = context.active();
  const runParent = contextFrom(runTrace, active);
  const runSpan = trace.getSpanContext(runParent);
  if (!runSpan || !isSpanContextValid(runSpan)) return fn();
  const current = trace.getSpanContext(active);
  const currentValid = !!current && isSpanContextValid(current);
  if (currentValid && current.traceId === runSpan.traceId) return fn();
  const links: Link[] = currentValid ? [{ context: current }] : [];
  const span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, links, attributes }, runParent);
  return inSpan(span, runParent, fn);
}
