/**
 * What the rest of the code uses to trace: pass-throughs while tracing is off (nothing of
 * OpenTelemetry is even loaded), the implementations in trace-ops.ts once tracing-sdk.ts
 * has started the SDK.
 */

/**
 * W3C trace context as events carry it in their metadata (and so in Kafka headers):
 * `traceparent` and `tracestate`, exactly as the HTTP headers of the same names.
 */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
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

/** The helpers below, as a process that traces has them (trace-ops.ts, and the SDK's shutdown). */
export interface TraceOps {
  shutdown(): Promise<void>;
  traceMetadata(): TraceCarrier;
  activeTraceIds(): TraceIds;
  inEventSpan<T>(
    group: string,
    event: ConsumedEvent,
    where: { topic: string; lane: string; runId: string | null },
    fn: () => Promise<T>,
  ): Promise<T>;
  inRunTrace<T>(
    runTrace: TraceCarrier | null | undefined,
    name: string,
    attributes: Record<string, string | number>,
    fn: () => Promise<T>,
  ): Promise<T>;
}

let ops: TraceOps | null = null;

/** True once the SDK is started in this process (see tracing-sdk.ts). */
export const isTracing = (): boolean => ops !== null;

/** For tracing-sdk.ts only: the helpers of a process that traces, or null when it stops. */
export const useTraceOps = (traceOps: TraceOps | null): void => {
  ops = traceOps;
};

/**
 * Ends tracing in this process: exports the spans still buffered. A no-op when tracing is
 * off. The SDK already does it on SIGTERM/SIGINT after the application closed, and when the
 * event loop runs dry; a bootstrap that ends the process itself (process.exit) calls it first.
 */
export const stopTracing = (): Promise<void> => (ops ? ops.shutdown() : Promise.resolve());

/** The ids of the active span, for log lines (libs/logging); `{}` when tracing is off or no span is active. */
export interface TraceIds {
  trace_id?: string;
  span_id?: string;
}
export const activeTraceIds = (): TraceIds => (ops ? ops.activeTraceIds() : {});

/** The active span's trace context as metadata fields (W3C); `{}` when tracing is off or no span is active. */
export const traceMetadata = (): TraceCarrier => (ops ? ops.traceMetadata() : {});

/**
 * Runs a consumer group's handling of an event in a CONSUMER span named `<group> <type>`,
 * whose parent is the trace context the event's metadata carries (none: a trace of its own):
 * the commands issued while handling it (the next events) carry this span as theirs, so one
 * run is one trace. Attributes follow the messaging conventions where they fit (the
 * destination is the run events topic; the lane is the partition), plus the run's own.
 */
export function inEventSpan<T>(
  group: string,
  event: ConsumedEvent,
  where: { topic: string; lane: string; runId: string | null },
  fn: () => Promise<T>,
): Promise<T> {
  return ops ? ops.inEventSpan(group, event, where, fn) : fn();
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
  return ops ? ops.inRunTrace(runTrace, name, attributes, fn) : fn();
}

/** The trace context of the latest event that carries one (the run's trace), if any. */
export function latestTrace(events: ReadonlyArray<{ metadata: TraceCarrier }>): TraceCarrier | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const { traceparent, tracestate } = events[i].metadata;
    if (traceparent) return tracestate ? { traceparent, tracestate } : { traceparent };
  }
  return undefined;
}
