import { loadConfig } from '@app/config';
import { openBus, openEventStore, openReadModel } from '@app/infrastructure';
import { rebuildReadModel } from './rebuild-read-model';
import { republishEvents } from './republish-events';
import { formatHistory, runHistory } from './run-history';
import { terminalProgress } from './terminal-progress';

/**
 * Operator commands that work on the stores themselves, not through the admin API: the
 * same adapters the service is configured with (EVENT_STORE, READ_MODEL, BUS; the SQLite
 * files in DATA_DIR by default). Safe while the service runs.
 */
async function openStores() {
  const config = loadConfig();
  const store = openEventStore(config);
  const readModel = await openReadModel(config);
  return {
    config,
    store,
    readModel,
    close: async () => {
      await store.close();
      await readModel.close();
    },
  };
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
      const { store, close } = await openStores();
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
      const { store, readModel, close } = await openStores();
      try {
        const dryRun = flag(args, '--dry-run');
        const report = await rebuildReadModel(store, readModel, { runId: option(args, '--run'), dryRun, progress: terminalProgress() });
        console.log(
          JSON.stringify(
            {
              dry_run: dryRun,
              runs: report.runs,
              changed: report.changed.length,
              changed_runs: report.changed.slice(0, 100),
              newer_in_read_model: report.newerInReadModel,
            },
            null,
            2,
          ),
        );
        return 0;
      } finally {
        await close();
      }
    },
  },
  'events:republish': {
    usage: 'events:republish --from <position> --to <position> [--run <run-id>] [--dry-run]   send stored events to Kafka again',
    async run(args) {
      const from = Number(option(args, '--from'));
      const to = Number(option(args, '--to'));
      if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return usage('events:republish');
      const config = loadConfig();
      if (config.bus.kind !== 'kafka') {
        console.error(
          'events:republish sends to Kafka (BUS=kafka, KAFKA_BROKERS). The embedded bus lives inside the service ' +
            'process, whose relay already re-sends everything after the lowest consumer checkpoint when it starts.',
        );
        return 2;
      }
      const store = openEventStore(config);
      const bus = openBus(config, '-cli');
      try {
        const dryRun = flag(args, '--dry-run');
        const report = await republishEvents(store, bus, { from, to, runId: option(args, '--run'), dryRun, progress: terminalProgress() });
        console.log(JSON.stringify({ dry_run: dryRun, ...report }, null, 2));
        return 0;
      } finally {
        await bus.close();
        await store.close();
      }
    },
  },
};

function usage(name: string): number {
  console.error(`usage: npm run cli -- ${OPERATOR_COMMANDS[name].usage}`);
  return 2;
}
