/**
 * Object-created keys in a bucket notification: the S3 event format, which MinIO also
 * sends to Kafka (`{ EventName, Key, Records: [{ eventName, s3: { object: { key } } }] }`).
 * Keys arrive URL-encoded ('+' for a space). Anything else (removals, test events,
 * malformed payloads) gives no key: the periodic look still finds every upload.
 */
export function createdObjectKeys(payload: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return [];
  }
  const records = (parsed as { Records?: unknown })?.Records;
  if (!Array.isArray(records)) return [];
  const keys: string[] = [];
  for (const r of records) {
    const name = (r as { eventName?: unknown })?.eventName;
    const key = (r as { s3?: { object?: { key?: unknown } } })?.s3?.object?.key;
    if (typeof name !== 'string' || !/^(s3:)?ObjectCreated:/.test(name) || typeof key !== 'string') continue;
    try {
      keys.push(decodeURIComponent(key.replace(/\+/g, ' ')));
    } catch {
      // A malformed escape: not one of our keys.
    }
  }
  return keys;
}

/** Where bucket notifications come from (a Kafka topic fed by MinIO, an SQS bridge...). */
export interface BucketNotifications {
  /** Calls `onCreated` for each created object's key; a throwing handler gets the notification again. */
  start(onCreated: (key: string) => Promise<void>): Promise<{ stop(): Promise<void> }>;
}

export const BUCKET_NOTIFICATIONS = Symbol('BUCKET_NOTIFICATIONS');
