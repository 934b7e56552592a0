import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** A finished span as the tracing tests look at it, from the in-memory exporter or from OTLP/JSON. */
export interface SeenSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  service: string;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

/** API SpanKind order (INTERNAL = 0 … CONSUMER = 4); OTLP numbers the same kinds from 1. */
const KINDS: SeenSpan['kind'][] = ['internal', 'server', 'client', 'producer', 'consumer'];

export const fromReadable = (s: ReadableSpan): SeenSpan => ({
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parentSpanId: s.parentSpanContext?.spanId ?? null,
  name: s.name,
  kind: KINDS[s.kind],
  service: String(s.resource.attributes['service.name']),
  attributes: { ...s.attributes },
  links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
});

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };
const value = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributes = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

/** The spans of one OTLP/JSON export request (`POST /v1/traces`, ids in hex as the JSON encoding has them). */
export function fromOtlpJson(body: any): SeenSpan[] {
  const out: SeenSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name']);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || null,
          name: s.name,
          kind: KINDS[(s.kind ?? 1) - 1],
          service,
          attributes: attributes(s.attributes),
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId })),
        });
      }
    }
  }
  return out;
}

/**
 * What is wrong with `spans` as one connected trace rooted at `root` (empty: nothing):
 * every span of the trace has its parent among them, and only the root has none.
 */
export function treeProblems(spans: SeenSpan[], root: SeenSpan): string[] {
  const inTrace = spans.filter((s) => s.traceId === root.traceId);
  const ids = new Set(inTrace.map((s) => s.spanId));
  const problems: string[] = [];
  for (const s of inTrace) {
    if (s.spanId === root.spanId) {
      if (s.parentSpanId !== null) problems.push(`the root ${s.name} has a parent ${s.parentSpanId}`);
    } else if (s.parentSpanId === null) {
      problems.push(`${s.service}: ${s.name} is a second root`);
    } else if (!ids.has(s.parentSpanId)) {
      problems.push(`${s.service}: ${s.name}'s parent ${s.parentSpanId} is not in the trace`);
    }
  }
  return problems;
}

/** `url.path`/`http.target` of an HTTP span, whichever semantic conventions it follows. */
export const httpPath = (s: SeenSpan): string => text(s.attributes['url.path'] ?? s.attributes['http.target']).split('?')[0];

/** `http.request.method`/`http.method` of an HTTP span. */
export const httpMethod = (s: SeenSpan): string => text(s.attributes['http.request.method'] ?? s.attributes['http.method']);

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `server.port`/`net.peer.port` of an HTTP client span. */
export const peerPort = (s: SeenSpan): number => Number(s.attributes['server.port'] ?? s.attributes['net.peer.port']);
