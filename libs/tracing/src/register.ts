/**
 * Imported first by each app's main.ts (`import '@app/tracing/register';`): starts tracing
 * before anything loads `http`, when the OTEL_* variables ask for it (tracing-env.ts), with
 * the app's name as the default service name. Otherwise it loads none of the SDK.
 */
import { appNameOf, tracingWanted } from './tracing-env';

if (tracingWanted()) {
  // Loaded only when wanted: the SDK and its exporters are a lot of code for a process that does not trace.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  startTracing({ serviceName: appNameOf(require.main?.filename ?? process.argv[1]) });
}
