/**
 * The layers, and which way imports may point (`npm run lint` runs this as `depcruise`).
 *
 *   contracts            event and API shapes; imports no lib
 *   domain               the pure rules (decider, fields, mapping); imports contracts only
 *   ports and adapters   event-store, bus, read-model, directory, accounts, blob-storage, sqlite, tabular, config,
 *                        url-safety, http-headers: each imports contracts, domain, config and sqlite at most,
 *                        never another adapter lib
 *   application libs     run-commands, run-event-transport, event-relay, run-source, run-links, cpu-work,
 *                        ai-providers: use ports and the domain; never the composition root
 *   composition-root     chooses adapters and wires Nest; imported by apps only
 *   apps                 one per process; only `standalone` (all of them in one process) imports other apps
 *   tracing              OpenTelemetry's set-up and the trace context helpers; imports no lib, so any layer may use it
 */
const ADAPTER_LIBS =
  '(event-store|bus|read-model|directory|accounts|dead-letters|leases|blob-storage|sqlite|tabular|config|url-safety|http-headers)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes the order of loading matter.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contracts-import-no-lib',
      severity: 'error',
      from: { path: '^libs/contracts/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/contracts/' },
    },
    {
      name: 'tracing-imports-no-lib',
      severity: 'error',
      comment: 'Imported first by every main.ts, before anything else is loaded: it stands alone.',
      from: { path: '^libs/tracing/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/tracing/' },
    },
    {
      name: 'domain-imports-contracts-only',
      severity: 'error',
      comment: 'The rule book is pure: no adapter, no framework wiring.',
      from: { path: '^libs/domain/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/(domain|contracts)/' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      severity: 'error',
      comment: 'A port and its adapters stand alone: shared helpers go to a lib of their own (e.g. sqlite).',
      from: { path: `^libs/${ADAPTER_LIBS}/` },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/(contracts|domain|config|sqlite)/', '^libs/$1/'] },
    },
    {
      name: 'only-apps-import-the-composition-root',
      severity: 'error',
      from: { path: '^libs/', pathNot: '^libs/composition-root/' },
      to: { path: '^libs/composition-root/' },
    },
    { name: 'libs-do-not-import-apps', severity: 'error', from: { path: '^libs/' }, to: { path: '^apps/' } },
    {
      name: 'apps-do-not-import-each-other',
      severity: 'error',
      comment: 'Only the one-process app composes the others.',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/standalone/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
