import { type AppConfig, loadConfig } from '@app/config';
import { openEventStore, openReadModel } from '@app/composition-root';
import { usageError } from '../exit-codes';

/**
 * The service's configuration from the environment (EVENT_STORE, READ_MODEL, BUS,
 * DATA_DIR, ...). An invalid one is a usage error: nothing was opened.
 */
export function operatorConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  try {
    // The stores' commands do not call the admin API: its token, set for the CLI's other commands, is not theirs to refuse.
    return loadConfig({ ...env, ADMIN_TOKEN: undefined });
  } catch (err) {
    throw usageError(`Invalid configuration: ${(err as Error).message}`);
  }
}

/**
 * The event store and read model the service is configured with (the SQLite files in
 * DATA_DIR by default): the same adapters, so the commands are safe while it runs.
 */
export async function openStores(config: AppConfig) {
  const store = openEventStore(config);
  const readModel = await openReadModel(config).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  return {
    store,
    readModel,
    close: async () => {
      await store.close();
      await readModel.close();
    },
  };
}
