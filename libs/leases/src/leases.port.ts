import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Named, expiring claims shared by every replica: a singleton (the relay) or one piece of
 * work (a run's webhook delivery, a run's upload check) is done by whoever holds its lease.
 * A holder that dies stops renewing; its lease expires and another takes over.
 */
export interface LeaseStore {
  /**
   * Takes the lease (free, expired, or already this holder's) until now + ttlMs; false when
   * someone else holds it. `note` says what the lease is for (a claimed step keeps its event
   * there, for whoever takes it over); a renewal without one keeps the note it has.
   */
  acquire(name: string, holder: string, ttlMs: number, note?: string): Promise<boolean>;
  /** Gives it back (only the holder can). */
  release(name: string, holder: string): Promise<void>;
  /** The leases whose name starts with `prefix`, held or expired (a released lease is gone), oldest expiry first. */
  list(prefix: string, limit: number): Promise<LeaseRecord[]>;
  close(): Promise<void>;
}

export interface LeaseRecord {
  name: string;
  holder: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  note: string | null;
}

export const LEASE_STORE = Symbol('LEASE_STORE');

/**
 * This process's name on the leases it takes for `role`: the host (a container's or pod's
 * own name) or INSTANCE_ID. Stable across restarts, so a process that died holding a lease
 * takes it back at once when it comes back, instead of waiting for it to expire; two
 * replicas have different names.
 */
export const leaseHolder = (role: string): string => `${process.env.INSTANCE_ID || hostname()}/${role}`;

/**
 * This process as a holder of claims that are not leases (a request's Idempotency-Key): its
 * instance name (INSTANCE_ID or the host, as leaseHolder) and its incarnation, random per
 * start. A claim of the same instance under another incarnation was held by a process that
 * died since: the instance was started again, so the claim is taken back at once.
 */
export const processHolder: { readonly instance: string; readonly incarnation: string } = Object.freeze({
  instance: process.env.INSTANCE_ID || hostname(),
  incarnation: randomUUID(),
});
