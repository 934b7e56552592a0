import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type AppConfig, loadConfig } from '@app/config';
import { openEventStore, openReadModel } from '@app/composition-root';
import { usageError } from '../exit-codes';

/** What an operator command opens; on the embedded adapters each is a SQLite file in DATA_DIR. */
export type StoreUse = 'event store' | 'read model' | 'dead letters';

/** The SQLite file behind each use, when the configuration keeps it in DATA_DIR (composition-root's adapters.ts). */
const EMBEDDED_FILE: Record<StoreUse, (c: AppConfig) => string | null> = {
  'event store': (c) => (c.eventStore.kind === 'sqlite' ? 'events.sqlite' : null),
  'read model': (c) => (c.readModel.kind === 'sqlite' ? 'read-model.sqlite' : null),
  // Dead letters sit next to the checkpoints: in the embedded event store's file unless the read model is MongoDB.
  'dead letters': (c) => (c.readModel.kind === 'sqlite' ? 'events.sqlite' : null),
};

/** Stands in for both key files while the configuration is only checked (base64 of 32 bytes, as each must be): reading it then creates nothing in DATA_DIR. */
const STAND_IN_KEY = Buffer.alloc(32).toString('base64');

const readConfig = (env: NodeJS.ProcessEnv): AppConfig => {
  try {
    // The stores' commands do not call the admin API: its token, set for the CLI's other commands, is not theirs to refuse.
    return loadConfig({ ...env, ADMIN_TOKEN: undefined });
  } catch (err) {
    throw usageError(`Invalid configuration: ${(err as Error).message}`);
  }
};

/**
 * The adapters and DATA_DIR the environment configures, read without creating anything:
 * the service's configuration generates DATA_DIR/secrets.key and signing.key when they are
 * missing, so they are stood in for here. An invalid configuration is a usage error.
 */
export function configuredAdapters(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return readConfig({ ...env, SIGNING_SECRET: env.SIGNING_SECRET || STAND_IN_KEY, SECRETS_KEY: env.SECRETS_KEY || STAND_IN_KEY });
}

/**
 * The service's configuration from the environment (EVENT_STORE, READ_MODEL, BUS,
 * DATA_DIR, ...), for a command that opens `uses`. An invalid configuration is a usage
 * error, and so is a DATA_DIR without the embedded stores the command would open: opening
 * them would create a new, empty set (and new key files) instead of reading the service's.
 * The keys are stood in for: the stores' commands neither seal nor sign anything, and the
 * service's configuration would otherwise generate DATA_DIR/secrets.key and signing.key
 * (./data when DATA_DIR is unset) on a machine whose stores are EventStoreDB and MongoDB.
 */
export function operatorConfig(uses: readonly StoreUse[], env: NodeJS.ProcessEnv = process.env): AppConfig {
  const config = configuredAdapters(env);
  requireEmbeddedStores(config, uses, env);
  return config;
}

/**
 * operatorConfig with the service's own keys (SECRETS_KEY, or the key files in DATA_DIR), for
 * the one command that needs them: secrets:reencrypt opens and seals the stored secrets.
 * Nothing is created before the stores' check passes.
 */
export function operatorConfigWithKeys(uses: readonly StoreUse[], env: NodeJS.ProcessEnv = process.env): AppConfig {
  requireEmbeddedStores(configuredAdapters(env), uses, env);
  return readConfig(env);
}

function requireEmbeddedStores(config: AppConfig, uses: readonly StoreUse[], env: NodeJS.ProcessEnv): void {
  for (const use of uses) {
    const file = EMBEDDED_FILE[use](config);
    if (file === null || isFile(join(config.dataDir, file))) continue;
    const given = env.DATA_DIR ? `DATA_DIR=${env.DATA_DIR}` : 'DATA_DIR is not set, so the default ./data';
    throw usageError(
      `No ${use} in ${config.dataDir} (${given}): ${file} is not there. DATA_DIR must point at the service's data folder, ` +
        'where it keeps events.sqlite and read-model.sqlite. Nothing was opened or created.',
    );
  }
}

const isFile = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;

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
