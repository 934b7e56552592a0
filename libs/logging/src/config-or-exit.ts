import pino from 'pino';
import { type AppConfig, loadConfig, logSettings } from '@app/config';
import { loggerOptions } from './logger-params';

/**
 * A process's configuration, or its end. A refused setting (a short ADMIN_TOKEN, a port that is no
 * port) stops the process with exit 1 before anything is made, and says why on standard error: as
 * one JSON line at level `fatal` when the process logs JSON (LOG_FORMAT, or not a terminal), so the
 * operator's log pipeline sees it like any other line; else as text, with its stack. For the
 * entry points (`main.ts`); modules' `forRoot` still throws, for whoever builds them otherwise.
 */
export function configOrExit(env: NodeJS.ProcessEnv = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    return refuseStart(err as Error, env);
  }
}

/** Ends a process whose setting was refused as it started (also a worker's HEALTH_PORT, read by runWorker), saying why as configOrExit does. */
export function refuseStart(err: Error, env: NodeJS.ProcessEnv = process.env): never {
  const message = `The service could not start: ${err.message}`;
  if (logsJson(env)) {
    // Synchronous: the line is out before the process exits.
    pino(loggerOptions({ level: 'fatal' }), pino.destination({ dest: 2, sync: true })).fatal({ context: 'Config', err }, message);
  } else {
    process.stderr.write(`${message}\n${err.stack ?? ''}\n`);
  }
  process.exit(1);
}

/** Whether the process would log JSON; when the log settings are what was refused, as they default (JSON unless at a terminal). */
function logsJson(env: NodeJS.ProcessEnv): boolean {
  try {
    return logSettings(env).format === 'json';
  } catch {
    return !process.stdout.isTTY;
  }
}
