import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';

const bundles = new Map<string, string>();

/** The modules (TypeScript, the repository's `@app/*` paths) as one CommonJS text exporting each by its name; packages stay `require`s. */
function bundleOf(modules: Record<string, string>): string {
  const contents = Object.entries(modules)
    .map(([name, path]) => `export * as ${name} from ${JSON.stringify(path)};`)
    .join('\n');
  let code = bundles.get(contents);
  if (code === undefined) {
    const built = buildSync({
      stdin: { contents, loader: 'ts', resolveDir: process.cwd() },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      write: false,
    });
    code = built.outputFiles[0].text;
    bundles.set(contents, code);
  }
  return code;
}

/**
 * The value of `expression` (JavaScript, with `m.<name>` each module of `modules`, by its path, and `input` as given),
 * evaluated in a Node process whose time zone is `tz`, as JSON. A test cannot change its own time zone:
 * jest hands each test file a copy of process.env, so `process.env.TZ = …` there reaches no clock (a test
 * that did so checked UTC three times and passed).
 */
export function inTimeZone<T>(tz: string, modules: Record<string, string>, expression: string, input: unknown): T {
  const program = `${bundleOf(modules)}
const m = module.exports;
const input = ${JSON.stringify(input)};
process.stdout.write(JSON.stringify({ zone: Intl.DateTimeFormat().resolvedOptions().timeZone, value: (${expression}) }));`;
  const run = spawnSync(process.execPath, ['-e', program], {
    cwd: process.cwd(),
    env: { ...process.env, TZ: tz },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`the program failed in ${tz}: ${run.stderr || run.error?.message}`);
  const { zone, value } = JSON.parse(run.stdout) as { zone: string; value: T };
  // The zone is the one asked for, so a check run in UTC by mistake cannot pass for one run elsewhere.
  if (zone !== tz) throw new Error(`asked for the time zone ${tz}, the process ran in ${zone}`);
  return value;
}
