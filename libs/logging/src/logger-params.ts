import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import pino from 'pino';
import type { LogSettings } from '@app/config';
import { activeTraceIds } from '@app/tracing';
import { standardOutputLog } from './log-destination';
import { redactUrl } from './redact-url';

/** What is never written to a log line, wherever it appears in a logged object (pino's redact paths). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  // At the top of a line (a Nest Logger call's object) and one level down.
  'authorization',
  'api_key',
  'apiKey',
  'secret',
  'webhook_secret',
  'signing_secret',
  'password',
  'token',
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
 * The options of the service's logger: every Nest `Logger` call becomes one JSON line, with
 * the request id and the caller's organization inside a request (access-log.ts binds them)
 * and run id, event type and position inside a consumer's handling (bound by the
 * transport). Secrets are redacted by path, and URLs lose their signatures before they are
 * logged.
 */
export function loggerOptions(settings: Pick<LogSettings, 'level'>): pino.LoggerOptions {
  return {
    level: settings.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // With tracing on (libs/tracing), each line names its trace: from a log line to the whole run's trace.
    mixin: activeTraceIds,
    serializers: {
      req: (req: IncomingMessage & { id?: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url ?? '') }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
  };
}

/**
 * The options of the access log's own logger: the same level and trace fields, no
 * redaction. Its lines are built field by field from values that hold no secret (the
 * request id, method, URL with its signatures redacted, status, time, organization id), and
 * pino's redaction, walking 16 wildcard paths through every line, cost 5 times the rest of
 * the line (docs/decisions.md, "The cost of one request").
 */
export function accessLoggerOptions(settings: Pick<LogSettings, 'level'>): pino.LoggerOptions {
  return { level: settings.level, mixin: activeTraceIds };
}

let prettyDestination: pino.DestinationStream | null = null;

/** Where lines go: standard output, asynchronously (log-destination.ts); or pino-pretty's worker thread for a person at a terminal. */
export function logDestination(settings: Pick<LogSettings, 'format'>): pino.DestinationStream {
  if (settings.format !== 'pretty') return standardOutputLog();
  prettyDestination ??= pino.transport({
    target: 'pino-pretty',
    options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
  }) as pino.DestinationStream;
  return prettyDestination;
}

/**
 * nestjs-pino's settings: its logger is ours (above), and its HTTP middleware is off (no
 * routes): the access log and the request's log context are Fastify hooks
 * (access-log.ts), which cost a fraction of pino-http's middleware run through Nest's
 * middleware layer.
 */
export function loggerParams(settings: LogSettings): Params {
  return { pinoHttp: { logger: pino(loggerOptions(settings), logDestination(settings)) }, forRoutes: [] };
}
