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
import type { ConsumedEvent, TraceCarrier, TraceIds, TraceOps } from './trace-context';

/**
 * The trace helpers for a process that traces (trace-context.ts delegates to these once
 * tracing-sdk.ts has started the SDK): only then are the OpenTelemetry API and core loaded.
 */

/** Our tracer's name (instrumentation scope). */
const TRACER_NAME = 'transformation-service';

/** Always W3C for metadata, whatever OTEL_PROPAGATORS says for HTTP: the fields are named after its headers. */
const w3c = new W3CTraceContextPropagator();

const tracer = () => trace.getTracer(TRACER_NAME);

function traceMetadata(ctx: Context = context.active()): TraceCarrier {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  const out: TraceCarrier = {};
  if (carrier.traceparent) out.traceparent = carrier.traceparent;
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  return out;
}

/** The context whose (remote) parent is the one a carrier names; `base` unchanged when it names none. */
function contextFrom(carrier: TraceCarrier | null | undefined, base: Context): Context {
  if (!carrier?.traceparent) return base;
  const fields: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return w3c.extract(base, fields, defaultTextMapGetter);
}

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

function inEventSpan<T>(
  group: string,
  event: ConsumedEvent,
  attributes: { topic: string; lane: string; runId: string | null },
  fn: () => Promise<T>,
): Promise<T> {
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

function inRunTrace<T>(
  runTrace: TraceCarrier | null | undefined,
  name: string,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!runTrace?.traceparent) return fn();
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

function activeTraceIds(): TraceIds {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export const traceOps: Omit<TraceOps, 'shutdown'> = { traceMetadata: () => traceMetadata(), activeTraceIds, inEventSpan, inRunTrace };
