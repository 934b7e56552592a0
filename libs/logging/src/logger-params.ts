import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { LogSettings } from '@app/config';
import { activeTraceIds } from '@app/tracing';
import { redactUrl } from './redact-url';

/** What is never written to a log line, wherever it appears in a logged object (pino's redact paths). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-api-key"]',
  '*.api_key',
  '*.apiKey',
  '*.secret',
  '*.webhook_secret',
  '*.signing_secret',
  '*.password',
  '*.token',
];

/**
 * nestjs-pino's settings: every Nest `Logger` call becomes one JSON line (pino), with the
 * request id and the caller's organization inside a request, and run id, event type and
 * position inside a consumer's handling (bound by the transport). Secrets are redacted by
 * path, and URLs lose their signatures before they are logged.
 */
export function loggerParams(settings: LogSettings): Params {
  return {
    // Fields added during a request (the caller's organization) also go on its "request completed" line.
    assignResponse: true,
    pinoHttp: {
      level: settings.level,
      // Fastify's request id (middie copies it onto the raw request): the one the client gets as X-Request-Id.
      genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // With tracing on (libs/tracing), each line names its trace: from a log line to the whole run's trace.
      mixin: activeTraceIds,
      serializers: {
        req: (req: IncomingMessage & { id?: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url ?? '') }),
        res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      },
      // Probes and scrapes every few seconds would drown the requests that matter.
      autoLogging: { ignore: (req: IncomingMessage) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? '') },
      ...(settings.format === 'pretty'
        ? { transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
        : {}),
    },
  };
}
