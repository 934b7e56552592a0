import { PinoLogger } from 'nestjs-pino';
import { Store, storage } from 'nestjs-pino/storage';
import { addRequestLogFields } from './access-log';
import type { LogFields } from './log-fields';

/**
 * Runs `work` with these fields on every log line written meanwhile, from any Nest `Logger`
 * (a consumer handling one event: group, run id, organization, event type and position).
 * Without nestjs-pino set up (unit tests), it just runs `work`.
 */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  const base = storage.getStore()?.logger ?? PinoLogger.root;
  if (!base) return work();
  return storage.run(new Store(base.child(fields)), work);
}

/** Adds fields to the log lines of the request under way (the caller's organization once it is known), if there is one. */
export function addLogContext(fields: LogFields): void {
  if (addRequestLogFields(fields)) return;
  const store = storage.getStore();
  if (!store) return;
  store.logger = store.logger.child(fields);
  store.responseLogger?.setBindings(fields);
}
