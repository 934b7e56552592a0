import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric the service exposes (Prometheus text format, `GET /metrics`; docs/operations.md
 * lists them with what to watch). Labels are bounded sets (routes, steps, groups, lanes,
 * outcomes, providers): never a run, organization or key id, so series stay few however many
 * customers there are.
 *
 * One registry per process, like prom-client's own default: metrics are process-wide facts.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const registers = [registry];
/** Seconds, from a fast API answer to a long file step. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: DURATION_BUCKETS,
  registers,
});

export const stepDuration = new Histogram({
  name: 'transform_step_duration_seconds',
  help: 'How long a pipeline step took: ingestion (read the file), review_preparation (suggest the mapping), output (write json/csv).',
  labelNames: ['step'] as const,
  buckets: DURATION_BUCKETS,
  registers,
});

export const stepRowsPerSecond = new Histogram({
  name: 'transform_step_rows_per_second',
  help: 'Rows per second of a step that read rows (ingestion, output).',
  labelNames: ['step'] as const,
  buckets: [10, 100, 1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000],
  registers,
});

export const handlerDuration = new Histogram({
  name: 'transform_consumer_handler_duration_seconds',
  help: "A consumer group's handling of one event, by group, event type and outcome (ok, retry, dead_letter).",
  labelNames: ['group', 'event_type', 'outcome'] as const,
  buckets: DURATION_BUCKETS,
  registers,
});

export const webhookAttempts = new Counter({
  name: 'transform_webhook_attempts_total',
  help: 'Webhook delivery attempts, by event and outcome (delivered, failed).',
  labelNames: ['event', 'outcome'] as const,
  registers,
});

export const aiVendorCalls = new Histogram({
  name: 'transform_ai_vendor_call_duration_seconds',
  help: 'Calls to AI vendors (retries included), by provider and outcome (ok, timeout, http_<status>, unreachable); the count is the number of calls.',
  labelNames: ['provider', 'outcome'] as const,
  buckets: DURATION_BUCKETS,
  registers,
});

export const quotaRefusals = new Counter({
  name: 'transform_quota_refusals_total',
  help: "Requests or steps refused because an organization's quota is used up, by quota.",
  labelNames: ['quota'] as const,
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'transform_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (api_key: per-key requests per minute; failed_auth: failed authentications per address; console_sign_in: failed console sign-ins per account or address).',
  labelNames: ['limit'] as const,
  registers,
});

export const loopRestarts = new Counter({
  name: 'transform_loop_restarts_total',
  help: 'Times a loop that feeds consumers (event store subscription, relay, in-process feeder, poller) failed and was started again after a back-off, by loop.',
  labelNames: ['loop'] as const,
  registers,
});

/** Figures read from the stores when Prometheus scrapes (lags, run counts), each given by whoever knows them. */
type Readings = () => Promise<{ labels: Record<string, string>; value: number }[]>;

function gaugeFromReadings(name: string, help: string, labelNames: string[]) {
  const sources = new Set<Readings>();
  new Gauge({
    name,
    help,
    labelNames,
    registers,
    async collect() {
      this.reset();
      const all = await Promise.allSettled([...sources].map((read) => read()));
      // A store that does not answer leaves its series out rather than failing the whole scrape (readiness says why).
      for (const r of all) if (r.status === 'fulfilled') for (const { labels, value } of r.value) this.set(labels, value);
    },
  });
  return {
    /** Adds a source of readings; the function returned removes it (a stopped consumer or relay reports nothing). */
    addSource: (read: Readings): (() => void) => {
      sources.add(read);
      return () => void sources.delete(read);
    },
  };
}

export const consumerLag = gaugeFromReadings(
  'transform_consumer_lag_events',
  "Events a consumer group has still to handle in a lane: the event store's head position minus the group's checkpoint (Kafka: the partition's end offset minus the group's committed offset).",
  ['group', 'lane'],
);

export const relayLag = gaugeFromReadings(
  'transform_relay_lag_events',
  "Events stored but not yet published to the bus by a relay: the store's head position minus the relay's checkpoint.",
  ['relay'],
);

export const fileWorkThreads = gaugeFromReadings(
  'transform_file_work_threads',
  "Threads this process's file work (the CPU worker pool) has started, at work or idle: they start with work or as a big upload begins, and end after 30 s idle.",
  [],
);

export const runsByStatus = gaugeFromReadings('transform_runs', 'Runs in the read model, by status and stage.', ['status', 'stage']);

/** The text Prometheus scrapes, and its content type. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** The pipeline steps whose duration is measured. */
export type MeasuredStep = 'ingestion' | 'review_preparation' | 'duplicates' | 'output';

/** Starts timing a step; the function returned records it once it succeeded, with the rows it read if it read rows. */
export function stepTimer(step: MeasuredStep): (rows?: number) => void {
  const started = process.hrtime.bigint();
  return (rows) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    stepDuration.observe({ step }, seconds);
    if (rows !== undefined && rows > 0 && seconds > 0) stepRowsPerSecond.observe({ step }, rows / seconds);
  };
}
