import { Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { IdempotencyStore } from '@app/directory';
import { processHolder } from '@app/leases';
import { ApiError } from '../http/api-error';
import { headerLines } from '../http/api-key';

/** How long a key answers with its first response, from its first use. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a request holds its key while it creates the run. Creation takes well under a
 * second; the lock only matters when the holder died or failed. A retry with the same request
 * takes the key over at once after a failure that lifts the lock, and at once when the process
 * that held it died and its instance was started again (the claim names its holder's instance
 * and incarnation, `processHolder`, as leases name theirs); otherwise once it lapses (a holder
 * that died for good, on a replica that is not started again under its name).
 */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** 1 to 255 printable ASCII characters (space included, as HTTP trims the ends). */
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

/** Canonical JSON: members sorted by name at every level, so that the same data in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same": the operation and the body's data (not its whitespace or member order). */
export const idempotencyRequestHash = (operation: string, body: unknown): string =>
  createHash('sha256')
    .update(`${operation}\n${canonicalJson(body)}`)
    .digest('hex');

/**
 * The Idempotency-Key of a request, from its raw header lines (name, value, name, value…):
 * undefined when absent; a 422 naming the header when malformed or sent more than once. Node
 * joins repeated lines of a header it does not know into one value, "x, y", which was taken as
 * a key of its own (and replayed a run made with the key "x, y").
 */
export function idempotencyKeyOf(rawHeaders: readonly string[]): string | undefined {
  const values = headerLines(rawHeaders, 'idempotency-key');
  if (values.length === 0) return undefined;
  if (values.length > 1) throw ApiError.validation({ [IDEMPOTENCY_HEADER]: ['Send the Idempotency-Key header once.'] });
  const value = values[0];
  if (!KEY_RE.test(value)) {
    throw ApiError.validation({ [IDEMPOTENCY_HEADER]: ['The Idempotency-Key header must be 1 to 255 printable ASCII characters.'] });
  }
  return value;
}

/** The answer of a run-creating POST (always 201: only successful answers are stored and replayed). */
export interface IdempotentAnswer<T> {
  body: T;
  /** True when this is the stored first answer, sent again. */
  replayed: boolean;
}

/**
 * Stripe-style idempotency keys for the run-creating POSTs. The first request of an
 * organization with a key claims it and creates the run; its answer is stored and the
 * same request with the same key gets it again for 24 hours. Another request with the key
 * is refused (422 `validation_failed` naming the header); the same request while the first is still
 * running gets 409 `idempotency_key_in_use` (it does not wait). A refusal before anything
 * was created (validation, quota) frees the key; any other failure keeps the run id the key
 * was given, so that a retry creates that very run, or answers with it if it exists.
 */
export class IdempotencyKeys {
  private readonly logger = new Logger('Idempotency');

  /** `holder`: this process (tests give another to play a restarted or another instance). */
  constructor(
    private readonly store: IdempotencyStore,
    private readonly holder: { instance: string; incarnation: string } = processHolder,
  ) {}

  /**
   * Runs `create(runId, resumed)` at most once per key: `resumed` is true when an earlier
   * attempt with this key may have created `runId` already.
   */
  async run<T>(
    organizationId: string,
    key: string,
    requestHash: string,
    create: (runId: string, resumed: boolean) => Promise<T>,
  ): Promise<IdempotentAnswer<T>> {
    const now = Date.now();
    const candidate = {
      organization_id: organizationId,
      key,
      request_hash: requestHash,
      resource_id: randomUUID(),
      state: 'pending' as const,
      lock_token: randomUUID(),
      locked_until: new Date(now + IDEMPOTENCY_LOCK_MS).toISOString(),
      lock_instance: this.holder.instance,
      lock_incarnation: this.holder.incarnation,
      response_status: null,
      response_body: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + IDEMPOTENCY_KEY_TTL_MS).toISOString(),
    };
    const claim = await this.store.claimIdempotencyKey(candidate, new Date(now).toISOString());
    if (!claim.claimed) {
      const live = claim.record;
      if (live.request_hash !== requestHash) {
        // The spec's 422 is `validation_failed` whatever the field: the header is named in `fields`.
        throw ApiError.validation({
          [IDEMPOTENCY_HEADER]: [
            'This key was used with a different request (another body or endpoint) in the last 24 hours; use a new key for a new request.',
          ],
        });
      }
      if (live.state === 'completed' && live.response_body !== null) return { body: JSON.parse(live.response_body) as T, replayed: true };
      throw new ApiError(
        409,
        'idempotency_key_in_use',
        'conflict',
        'A request with this Idempotency-Key is still in progress; retry it once that one has finished.',
        undefined,
        { 'Retry-After': '1' },
      );
    }

    const { resource_id: runId } = claim.record;
    let body: T;
    try {
      body = await create(runId, runId !== candidate.resource_id);
    } catch (err) {
      // A 4xx is a refusal before anything was created: forget the key. Anything else may have created the run.
      const forget = err instanceof ApiError && err.status < 500;
      await this.store.releaseIdempotencyKey(organizationId, key, candidate.lock_token, forget).catch((e: unknown) => {
        this.logger.warn(`could not release an idempotency key of ${organizationId}: ${String(e)}`);
      });
      throw err;
    }
    try {
      await this.store.completeIdempotencyKey(organizationId, key, candidate.lock_token, { status: 201, body: JSON.stringify(body) });
    } catch (err) {
      // The run exists: answer with it. A retry takes the key over once the lock lapses and answers with the same run.
      this.logger.warn(`could not store the answer of an idempotency key of ${organizationId}: ${String(err)}`);
    }
    return { body, replayed: false };
  }
}
