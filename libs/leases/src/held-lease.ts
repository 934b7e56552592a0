import { Logger } from '@nestjs/common';
import type { LeaseStore } from './leases.port';

/** A lease this process took for one piece of work: renewed until `release()`. */
export interface HeldLease {
  release(): Promise<void>;
}

const logger = new Logger('HeldLease');

/**
 * Takes `name` for work this process is doing now (a run's upload being received), or null
 * when someone else holds it. While held it is renewed every third of `ttlMs`, so it lasts as
 * long as the work, however long that is; if this process dies the renewals stop and the
 * lease expires `ttlMs` later. A renewal that fails is logged and tried again at the next
 * period: the work goes on, and the lease may lapse, which only lets the other side act as
 * it would have without one.
 */
export async function holdLease(store: LeaseStore, name: string, holder: string, ttlMs: number): Promise<HeldLease | null> {
  if (!(await store.acquire(name, holder, ttlMs))) return null;
  const period = Math.max(1, Math.floor(ttlMs / 3));
  let renewing: Promise<unknown> = Promise.resolve();
  const renewal = setInterval(() => {
    renewing = store.acquire(name, holder, ttlMs).then(
      (held) => held || logger.warn(`${name}: lease lost before its work ended (${holder})`),
      (err: Error) => logger.warn(`${name}: lease not renewed: ${err.message}`),
    );
  }, period);
  renewal.unref();
  let released: Promise<void> | null = null;
  return {
    release: () => {
      clearInterval(renewal);
      // After a renewal under way: landing after the release, it would take the lease again (an upsert).
      // Not for longer than a renewal period: a store that hangs must not hold up the work's answer.
      released ??= Promise.race([renewing, new Promise<void>((resolve) => setTimeout(resolve, period).unref())])
        .then(() => store.release(name, holder))
        .catch((err: Error) => logger.warn(`${name}: lease not given back (it expires): ${err.message}`));
      return released;
    },
  };
}
