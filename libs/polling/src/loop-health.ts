import { loopRestarts } from '@app/metrics';

/**
 * What a loop that feeds consumers (an event store subscription, a relay, the in-process
 * feeder, a poller) tells about itself: it failed and will start again after a back-off
 * (counted in `transform_loop_restarts_total{loop}`; the loop is down until it recovers), it
 * recovered (a pass went through), or it ended (stopped on purpose: it is forgotten).
 */
export interface LoopMonitor {
  failed(error: Error): void;
  recovered(): void;
  ended(): void;
}

interface LoopState {
  loop: string;
  failing: { since: string; error: string; restarts: number } | null;
}

/**
 * The loops of this process and which of them are down, for readiness (`/readyz` reports a
 * loop that is down under `loops`). Loop names are a bounded set (never a run or tenant id):
 * they label the metric.
 */
export class LoopHealth {
  private readonly loops = new Set<LoopState>();

  monitor(loop: string): LoopMonitor {
    const state: LoopState = { loop, failing: null };
    this.loops.add(state);
    return {
      failed: (error) => {
        loopRestarts.inc({ loop });
        state.failing = {
          since: state.failing?.since ?? new Date().toISOString(),
          error: error.message,
          restarts: (state.failing?.restarts ?? 0) + 1,
        };
      },
      recovered: () => {
        state.failing = null;
      },
      ended: () => {
        this.loops.delete(state);
      },
    };
  }

  /** The loops that are down: failed and not recovered since. */
  problems(): { loop: string; problem: string }[] {
    return [...this.loops]
      .filter((s) => s.failing)
      .map((s) => ({
        loop: s.loop,
        problem: `down since ${s.failing!.since} (${s.failing!.restarts} restart(s), starting again after a back-off): ${s.failing!.error}`,
      }));
  }
}

/** This process's loops (one registry per process, as the metrics). */
export const loopHealth = new LoopHealth();
