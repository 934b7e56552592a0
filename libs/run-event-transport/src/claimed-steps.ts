import { Logger } from '@nestjs/common';
import type { LeaseStore } from '@app/leases';

export interface ClaimedStepsOptions {
  store: LeaseStore;
  /** This process's name on its claims (`leaseHolder`): stable across restarts, different per replica. */
  holder: string;
  /** How long a claim lasts without renewal: how soon the step of a process that died is taken over. */
  ttlMs: number;
  /** How often a running step renews its claim (well below ttlMs), and how often orphaned claims are looked for. */
  renewMs: number;
  /** Steps running at once in this process; claiming one more waits for one to settle. */
  concurrency: number;
  /** The clock expiries are compared with (the lease store's own; tests move it). */
  now?: () => number;
}

/**
 * Long steps (reading a big file, writing an output, waiting on an AI vendor) run outside
 * the bus handler, so a consumer is never evicted from its Kafka group for working too long:
 * the handler claims the step (a lease named for it, whose note keeps what is needed to run
 * it again), the event is acknowledged, and the step runs in the background, renewing its
 * claim. A process that dies stops renewing; once the claim has expired, another replica
 * takes the step over from the note (and a process that comes back under the same name
 * takes its own claims back at once). A claim is released only when its step has settled:
 * a released claim leaves no trace, so releasing earlier could lose the step.
 */
export class ClaimedSteps {
  private readonly running = new Map<string, Promise<void>>();
  private readonly logger = new Logger(ClaimedSteps.name);

  constructor(private readonly options: ClaimedStepsOptions) {}

  get renewMs(): number {
    return this.options.renewMs;
  }

  /** Steps running in this process now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Claims `name` and starts `work` in the background under the claim. Resolves once the
   * step is claimed and started (true), or is someone else's (false). Waits first while
   * `concurrency` steps are running. `work` resolving means the step settled (the claim is
   * released); rejecting means it was given up unfinished (the claim stays and expires).
   */
  async start(name: string, note: string | undefined, work: () => Promise<void>): Promise<boolean> {
    if (this.running.has(name)) return true;
    while (this.running.size >= this.options.concurrency) await Promise.race(this.running.values());
    const { store, holder, ttlMs, renewMs } = this.options;
    if (!(await store.acquire(name, holder, ttlMs, note))) return false;
    const renewal = setInterval(() => void this.renew(name), renewMs);
    renewal.unref();
    const settled = (async () => {
      try {
        await work();
        await store
          .release(name, holder)
          .catch((err: Error) => this.logger.warn(`${name}: claim not released (it expires): ${err.message}`));
      } catch (err) {
        this.logger.warn(`${name}: left unfinished, to be taken over when its claim expires: ${(err as Error).message}`);
      } finally {
        clearInterval(renewal);
        this.running.delete(name);
      }
    })();
    this.running.set(name, settled);
    return true;
  }

  /**
   * Starts the orphaned steps among the claims named `prefix…`: those whose claim expired
   * (their process died or lost its store), and, when `ownToo`, those held under this
   * process's name that it is not running (claims of its previous life, at start-up).
   * `resume` turns a claim's note back into its work. Returns how many were started.
   */
  async takeOver(prefix: string, ownToo: boolean, resume: (note: string) => () => Promise<void>): Promise<number> {
    const now = (this.options.now ?? Date.now)();
    let started = 0;
    for (const claim of await this.options.store.list(prefix, 100)) {
      if (this.running.has(claim.name) || claim.note === null) continue;
      const orphaned = claim.expiresAt <= now || (ownToo && claim.holder === this.options.holder);
      if (!orphaned) continue;
      let work: () => Promise<void>;
      try {
        work = resume(claim.note);
      } catch (err) {
        this.logger.error(`${claim.name}: its note cannot be read, the step is not taken over: ${(err as Error).message}`);
        continue;
      }
      if (await this.start(claim.name, undefined, work)) {
        this.logger.warn(`${claim.name}: taken over from ${claim.holder}`);
        started++;
      }
    }
    return started;
  }

  /** Waits for every running step to settle or be given up (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private async renew(name: string): Promise<void> {
    try {
      if (await this.options.store.acquire(name, this.options.holder, this.options.ttlMs)) return;
      this.logger.error(
        `${name}: claim lost to another holder (a pause longer than its lease?): the step may run twice; its commands are idempotent`,
      );
    } catch (err) {
      this.logger.warn(`${name}: claim not renewed: ${(err as Error).message}`);
    }
  }
}

/** The claim of one group's step for one event: unique per event, so redeliveries meet the same claim. */
export const stepClaimName = (group: string, streamId: string, position: number): string => `step/${group}/${streamId}/${position}`;

/** The prefix of every claim of a group's steps. */
export const stepClaimPrefix = (group: string): string => `step/${group}/`;
