import { hostname } from 'node:os';

/**
 * Named, expiring claims shared by every replica: a singleton (the relay) or one piece of
 * work (a run's webhook delivery, a run's upload check) is done by whoever holds its lease.
 * A holder that dies stops renewing; its lease expires and another takes over.
 */
export interface LeaseStore {
  /** Takes the lease (free, expired, or already this holder's) until now + ttlMs; false when someone else holds it. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives it back (only the holder can). */
  release(name: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

export const LEASE_STORE = Symbol('LEASE_STORE');

/**
 * This process's name on the leases it takes for `role`: the host (a container's or pod's
 * own name) or INSTANCE_ID. Stable across restarts, so a process that died holding a lease
 * takes it back at once when it comes back, instead of waiting for it to expire; two
 * replicas have different names.
 */
export const leaseHolder = (role: string): string => `${process.env.INSTANCE_ID || hostname()}/${role}`;
