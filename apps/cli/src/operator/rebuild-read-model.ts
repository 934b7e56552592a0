import { isDeepStrictEqual } from 'node:util';
import { runIdOfStream, runStreamId } from '@app/contracts';
import type { EventStore } from '@app/event-store';
import { RUN_PROJECTION } from '@app/read-model';
import type { RunReadModel } from '@app/read-model';
import { foldRun, type MalformedRunEvent } from '@app/run-commands';

export interface RebuildProgress {
  start(total: number, label: string): void;
  advance(by?: number): void;
  stop(): void;
}

export const SILENT_PROGRESS: RebuildProgress = { start: () => undefined, advance: () => undefined, stop: () => undefined };

export interface RebuildReport {
  runs: number;
  /** Runs whose document differed from their folded stream (written, unless a dry run). */
  changed: string[];
  /** Runs skipped because the live projector had already applied newer events. */
  newerInReadModel: string[];
  /**
   * Stored events left out of their run's fold because they break their contract (or come before the run's
   * creation), in the order met. The store keeps them; their runs are rebuilt from their other events.
   */
  malformed: MalformedRunEvent[];
  /**
   * Runs whose stream folds to no run (its RunCreated is malformed) but which had a document, written from that
   * event before it was refused: removed (unless a dry run), so that the API no longer serves it.
   */
  removed: string[];
}

const PAGE = 1000;

/** Every run id in the global log, in order of first appearance. */
async function runIdsInLog(store: EventStore, progress: RebuildProgress): Promise<string[]> {
  const head = await store.headPosition();
  progress.start(head, 'scanning events');
  const ids = new Set<string>();
  for (let after = 0; ;) {
    const page = await store.readAll(after, PAGE);
    if (page.length === 0) break;
    for (const e of page) {
      const id = runIdOfStream(e.stream_id);
      if (id) ids.add(id);
    }
    // Positions are not counts on every store (EventStoreDB's are log offsets): advance by position.
    progress.advance(page[page.length - 1].position - after);
    after = page[page.length - 1].position;
  }
  progress.stop();
  return [...ids];
}

/**
 * Rebuilds run documents from their streams: each run's events are folded exactly as the
 * projector folds them and the document is replaced when it differs. It never empties the
 * read model first, so the API keeps answering while it runs, and it never writes a fold
 * older than what the live projector already applied. Running it twice changes nothing
 * the second time (idempotent). `dryRun` only reports. A malformed event is left out of its run's fold
 * and reported (`malformed`); the rebuild goes on with that run's other events and every other run.
 */
export async function rebuildReadModel(
  store: EventStore,
  readModel: RunReadModel,
  options: { runId?: string; dryRun?: boolean; progress?: RebuildProgress } = {},
): Promise<RebuildReport> {
  const progress = options.progress ?? SILENT_PROGRESS;
  const ids = options.runId ? [options.runId] : await runIdsInLog(store, progress);
  const checkpoint = { name: RUN_PROJECTION, position: await readModel.checkpoint(RUN_PROJECTION) };
  const report: RebuildReport = { runs: 0, changed: [], newerInReadModel: [], malformed: [], removed: [] };
  progress.start(ids.length, options.dryRun ? 'comparing runs' : 'rebuilding runs');
  for (const id of ids) {
    const folded = foldRun(await store.readStream(runStreamId(id)), (m) => report.malformed.push(m));
    progress.advance();
    if (!folded) {
      if (!(await readModel.getRun(id))) continue;
      report.removed.push(id);
      if (!options.dryRun) await readModel.deleteRun(id);
      continue;
    }
    report.runs++;
    const current = await readModel.getRun(id);
    if (current && current.revision > folded.revision) {
      report.newerInReadModel.push(id);
      continue;
    }
    if (current && isDeepStrictEqual(current, JSON.parse(JSON.stringify(folded)))) continue;
    report.changed.push(id);
    if (!options.dryRun) await readModel.saveRun(folded, checkpoint);
  }
  progress.stop();
  return report;
}
