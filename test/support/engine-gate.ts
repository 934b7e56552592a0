/**
 * Suites that need an engine this build machine cannot run (Kafka, EventStoreDB,
 * MongoDB) run when its address is set, and otherwise say loudly that they were skipped
 * and how to run them.
 */
export function describeWithEngine(envVar: string, example: string, name: string, suite: (url: string) => void): void {
  const url = process.env[envVar];
  if (!url) {
    process.stdout.write(`skipped: set ${envVar} (e.g. ${envVar}=${example}) to run "${name}"\n`);
    describe(name, () => {
      it.skip(`skipped: set ${envVar} (e.g. ${example})`, () => undefined);
    });
    return;
  }
  describe(name, () => suite(url));
}
