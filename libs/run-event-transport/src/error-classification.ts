/**
 * Whether an error is the infrastructure's (a store, broker or network that may answer
 * next time) rather than the event's. Transient errors are retried for as long as they
 * last (the group waits; readiness shows it); any other error is the event's, and after a
 * few attempts the event is dead-lettered instead of blocking the lane.
 */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'ENOSPC',
  'EMFILE',
]);

const TRANSIENT_NAMES = new Set([
  'WrongExpectedRevisionError', // another writer appended between our read and our append
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'UnavailableError', // EventStoreDB: the node cannot serve the call right now
  'NotLeaderError',
  'DeadlineExceededError',
  'TimeoutError',
  'AbortError',
]);

export function isTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, name, cause } = err as { code?: unknown; name?: unknown; cause?: unknown };
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
  if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return true;
  return cause !== undefined && cause !== err && isTransient(cause);
}
