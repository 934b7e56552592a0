import type { MessageBus } from '@app/bus';
import { TOPICS } from '@app/contracts';
import type { EventStore } from '@app/event-store';
import { type RebuildProgress, SILENT_PROGRESS } from './rebuild-read-model';

export interface RepublishOptions {
  /** First and last global position to send, both included. */
  from: number;
  to: number;
  /** Only events of this run. */
  runId?: string;
  dryRun?: boolean;
  progress?: RebuildProgress;
}

export interface RepublishReport {
  events: number;
  first: number | null;
  last: number | null;
}

const PAGE = 500;

/**
 * Sends a range of stored events to the run-events topic again, in global order and keyed
 * by run as the relay sends them (for a downstream team that lost data, or a new
 * consumer). Our own services skip what they already handled, so this is safe while
 * they run; sending the same range twice only sends duplicates, which consumers must
 * ignore by event id or position. `dryRun` counts without sending.
 */
export async function republishEvents(store: EventStore, bus: MessageBus, options: RepublishOptions): Promise<RepublishReport> {
  if (!Number.isSafeInteger(options.from) || !Number.isSafeInteger(options.to) || options.from < 1 || options.to < options.from) {
    throw new Error(`Need 1 <= --from <= --to, got from ${options.from}, to ${options.to}`);
  }
  const progress = options.progress ?? SILENT_PROGRESS;
  const stream = options.runId ? `run-${options.runId}` : null;
  const report: RepublishReport = { events: 0, first: null, last: null };
  progress.start(options.to - options.from + 1, options.dryRun ? 'counting events' : 'republishing events');
  for (let after = options.from - 1; after < options.to;) {
    const page = (await store.readAll(after, PAGE)).filter((e) => e.position <= options.to);
    if (page.length === 0) break;
    const chosen = stream ? page.filter((e) => e.stream_id === stream) : page;
    if (chosen.length > 0 && !options.dryRun) {
      await bus.publish(
        TOPICS.runEvents,
        chosen.map((e) => ({ key: e.stream_id, value: e })),
      );
    }
    for (const e of chosen) {
      report.events++;
      report.first ??= e.position;
      report.last = e.position;
    }
    progress.advance(page[page.length - 1].position - after);
    after = page[page.length - 1].position;
  }
  progress.stop();
  return report;
}
