import { join } from 'node:path';
import { loadConfig } from '@app/config';
import { SqliteEventStore } from '@app/event-store';
import { SqliteReadModel } from '@app/read-model';
import { rebuildReadModel } from './rebuild-read-model';
import { formatHistory, runHistory } from './run-history';
import { terminalProgress } from './terminal-progress';

/**
 * Operator commands that work on the stores themselves (embedded mode: the SQLite files
 * in DATA_DIR), not through the admin API. Safe while the service runs.
 */
function openStores() {
  const config = loadConfig();
  const store = new SqliteEventStore(join(config.dataDir, 'events.sqlite'), config.eventStorePollMs);
  const readModel = new SqliteReadModel(join(config.dataDir, 'read-model.sqlite'));
  return { store, readModel, close: () => store.close() };
}

const flag = (args: string[], name: string) => args.includes(name);
const option = (args: string[], name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

export const OPERATOR_COMMANDS: Record<string, { usage: string; run: (args: string[]) => Promise<number> }> = {
  'run:history': {
    usage: 'run:history <run-id> [--json]          every event of one run, in order',
    async run(args) {
      const [runId] = args;
      if (!runId) return usage('run:history');
      const { store, close } = openStores();
      try {
        const events = await runHistory(store, runId);
        if (events.length === 0) {
          console.error(`No events for run ${runId}.`);
          return 1;
        }
        console.log(flag(args, '--json') ? JSON.stringify(events, null, 2) : formatHistory(events).join('\n'));
        return 0;
      } finally {
        await close();
      }
    },
  },
  'readmodel:rebuild': {
    usage: 'readmodel:rebuild [--run <run-id>] [--dry-run]   refold run documents from the event store',
    async run(args) {
      const { store, readModel, close } = openStores();
      try {
        const dryRun = flag(args, '--dry-run');
        const report = await rebuildReadModel(store, readModel, { runId: option(args, '--run'), dryRun, progress: terminalProgress() });
        console.log(JSON.stringify({ dry_run: dryRun, runs: report.runs, changed: report.changed.length, changed_runs: report.changed.slice(0, 100), newer_in_read_model: report.newerInReadModel }, null, 2));
        return 0;
      } finally {
        await close();
      }
    },
  },
  'events:republish': {
    usage: 'events:republish --from <position> --to <position> [--dry-run]',
    async run() {
      console.error('events:republish needs a distributed bus (Kafka). The embedded bus lives inside the service process, '
        + 'whose relay already re-sends everything after the lowest consumer checkpoint on start; the Kafka adapter is not written yet.');
      return 2;
    },
  },
};

function usage(name: string): number {
  console.error(`usage: npm run cli -- ${OPERATOR_COMMANDS[name].usage}`);
  return 2;
}
