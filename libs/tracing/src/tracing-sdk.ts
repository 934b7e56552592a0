import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { useTraceOps } from './trace-context';
import { traceOps } from './trace-ops';
import { tracingWanted } from './tracing-env';

/**
 * The OpenTelemetry SDK for one process, configured by the standard OTEL_* variables only.
 * Off by default: see `tracingWanted`. Only traces: metrics and logs have their own
 * channels (/metrics, stdout), so the SDK starts no metric or log exporter.
 */

/** Probes and scrapes are not traced: they would be most of the spans and say nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** OTEL_SERVICE_NAME, or service.name in OTEL_RESOURCE_ATTRIBUTES, names the service; otherwise the app does. */
const serviceNameSetByEnv = (env: NodeJS.ProcessEnv): boolean =>
  !!env.OTEL_SERVICE_NAME?.trim() || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');

export interface StartTracingOptions {
  /** The service name when OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) does not give one. */
  serviceName: string;
  /** Tests: every span goes to this exporter as it ends, whatever OTEL_TRACES_EXPORTER says. */
  spanExporter?: SpanExporter;
  /** Flush and stop on SIGTERM/SIGINT, after the application's own shutdown (default: true without `spanExporter`). */
  stopOnSignals?: boolean;
}

let sdk: NodeSDK | null = null;
let http: HttpInstrumentation | null = null;
let stopping: Promise<void> | null = null;

/**
 * Starts the SDK with the HTTP instrumentation (the gateway's incoming requests; outgoing
 * calls to AI vendors and webhook receivers, made by axios over node's http/https).
 * Must run before `http` is loaded by anything that keeps a reference to its functions:
 * `register.ts` is imported first by each app's main.ts. Returns whether it started.
 */
export function startTracing(options: StartTracingOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk) return true;
  if (!options.spanExporter && !tracingWanted(env)) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  http = new HttpInstrumentation({
    ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
  });
  sdk = new NodeSDK({
    ...(serviceNameSetByEnv(env) ? {} : { serviceName: options.serviceName }),
    instrumentations: [http],
    ...(options.spanExporter ? { spanProcessors: [new SimpleSpanProcessor(options.spanExporter)] } : {}),
    // Traces only (an empty list is "none" to the SDK; unset, it would start OTLP exporters for both).
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  useTraceOps({ ...traceOps, shutdown: shutdownTracing });
  if (options.stopOnSignals ?? !options.spanExporter) stopOnSignals();
  return true;
}

/** The HTTP instrumentation of the running SDK (testing/in-memory-tracing.ts patches modules with it by hand). */
export const httpInstrumentation = (): HttpInstrumentation | null => http;

/** Ends every span processor (exporting what is still buffered). Safe to call more than once, or when tracing is off. */
export function shutdownTracing(): Promise<void> {
  if (!sdk) return Promise.resolve();
  const running = sdk;
  stopping ??= running
    .shutdown()
    .catch(() => undefined)
    .finally(() => {
      useTraceOps(null);
      http?.disable();
      http = null;
      sdk = null;
      stopping = null;
    });
  return stopping;
}

/**
 * Flushes at the very end of a stop. Nest's shutdown hooks (enableShutdownHooks) handle
 * SIGTERM/SIGINT: they close the application, then send the signal again. So the first
 * signal only notes itself here; once the application has closed (its last spans ended),
 * the event loop runs dry (beforeExit) or the signal comes back: the SDK then shuts down,
 * exporting what is buffered, and the signal ends the process as it would without tracing
 * (exit status 128 + signal). A signal no one else handles is handled so at once; a
 * process that ends by itself flushes at beforeExit.
 */
function stopOnSignals(): void {
  let received: NodeJS.Signals | null = null;
  let ending = false;
  const listeners = new Map<NodeJS.Signals, () => void>();
  const end = () => {
    if (ending) return;
    ending = true;
    void shutdownTracing().finally(() => {
      for (const [signal, listener] of listeners) process.removeListener(signal, listener);
      if (received) process.kill(process.pid, received);
    });
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const listener = () => {
      const first = received === null;
      received = signal;
      if (first && process.listenerCount(signal) > 1) return; // the application closes first
      end();
    };
    listeners.set(signal, listener);
    process.on(signal, listener);
  }
  process.once('beforeExit', end);
}
