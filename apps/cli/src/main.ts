import { runCli } from './cli-program';
import { EXIT } from './exit-codes';

/**
 * Operator CLI entry point (`npm run cli -- <command>`): admin-API commands talk to a running
 * service at SERVICE_URL with ADMIN_TOKEN; operator commands open the stores in DATA_DIR.
 * Commands: admin-api-commands.ts, operator/operator-commands.ts; exit codes: exit-codes.ts.
 */
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(EXIT.failed);
  },
);
