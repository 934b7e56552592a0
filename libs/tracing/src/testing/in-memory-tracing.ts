import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { httpInstrumentation, shutdownTracing, startTracing } from '../tracing-sdk';

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  stop(): Promise<void>;
}

interface ModuleDefinition {
  name: string;
  moduleExports?: unknown;
  patch?: (exports: unknown, version?: string) => unknown;
}

/**
 * Tracing into memory, for tests: every span is kept as it ends. Jest loads modules
 * through its own registry, which the SDK's require hook (require-in-the-middle) never
 * sees, so the HTTP instrumentation's patches are applied to node's http and https here
 * by hand, as the hook would apply them (and taken off again by `stop`).
 */
export function startInMemoryTracing(serviceName = 'test'): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  startTracing({ serviceName, spanExporter: exporter });
  const instrumentation = httpInstrumentation();
  // Private to the instrumentation: the definitions the require hook would have applied.
  const definitions = (instrumentation as unknown as { _modules: ModuleDefinition[] } | null)?._modules ?? [];
  for (const definition of definitions) {
    if (definition.name !== 'http' && definition.name !== 'https') continue;
    if (definition.moduleExports) continue; // the hook saw it after all
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exports: unknown = require(definition.name);
    definition.moduleExports = exports;
    definition.patch?.(exports);
  }
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    stop: async () => {
      await shutdownTracing();
      exporter.reset();
    },
  };
}
