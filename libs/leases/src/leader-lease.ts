import { Logger } from '@nestjs/common';
import type { LeaseStore } from './leases.port';

export interface LeaderLeaseOptions {
  /** How long a taken lease lasts without renewal: how soon a standby takes over after the leader died. */
  ttlMs: number;
  /** How often the leader renews (and a standby tries to take over); well below ttlMs. */
  renewMs: number;
}

/**
 * Runs one thing on one replica at a time (the relay): every replica tries to take the
 * lease; the one that holds it runs `lead()` and renews; the others stand by and take over
 * once it expires. A leader that cannot renew (its store unreachable, or someone else took
 * the lease after a pause) stops leading at once, before its lease could be someone else's.
 */
export class LeaderLease {
  private timer: NodeJS.Timeout | null = null;
  private leading = false;
  private ticking: Promise<void> = Promise.resolve();
  private readonly logger = new Logger(LeaderLease.name);

  constructor(
    private readonly store: LeaseStore,
    private readonly name: string,
    private readonly holder: string,
    private readonly options: LeaderLeaseOptions,
    private readonly role: { lead(): Promise<void>; standDown(): Promise<void> },
  ) {}

  get isLeading(): boolean {
    return this.leading;
  }

  async start(): Promise<void> {
    await this.tick().catch((err: Error) => this.logger.error(`${this.name}: ${err.message}`)); // the next tick tries again
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick()).catch((err: Error) => this.logger.error(`${this.name}: ${err.message}`)); // the next tick tries again
    }, this.options.renewMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    if (!this.leading) return;
    this.leading = false;
    await this.role.standDown();
    await this.store.release(this.name, this.holder).catch(() => undefined); // it expires anyway
  }

  private async tick(): Promise<void> {
    let held: boolean;
    try {
      // An answer later than the renewal period may come after the lease ran out: count it as lost.
      held = await Promise.race([
        this.store.acquire(this.name, this.holder, this.options.ttlMs),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer in time')), this.options.renewMs).unref()),
      ]);
    } catch (err) {
      this.logger.warn(`${this.name}: lease store unreachable: ${(err as Error).message}`);
      held = false;
    }
    if (held && !this.leading) {
      this.logger.log(`${this.name}: leading (${this.holder})`);
      try {
        await this.role.lead();
        this.leading = true;
      } catch (err) {
        // Not leading after all: give the lease back so that a standby (or the next tick) can.
        await this.store.release(this.name, this.holder).catch(() => undefined);
        throw err;
      }
    } else if (!held && this.leading) {
      this.leading = false;
      this.logger.warn(`${this.name}: lease lost; standing down (${this.holder})`);
      await this.role.standDown();
    }
  }
}
