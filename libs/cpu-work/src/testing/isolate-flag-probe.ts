import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';

/**
 * A probe for a function that sets V8 flags for the threads a process starts afterwards: the
 * module (`<name>.ts` beside the tests) transpiled into a temporary directory with `probe.js`,
 * a script that requires it as `./<name>`. Flags are process-wide, so each probe runs in a
 * process of its own: `run(nodeFlags, arg)` gives its standard output.
 */
export function isolateFlagProbe(name: string, probeSource: string): (nodeFlags: string[], arg: string) => string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const source = readFileSync(join(__dirname, '..', `${name}.ts`), 'utf8');
  writeFileSync(join(dir, `${name}.js`), transpileModule(source, { compilerOptions: { module: ModuleKind.CommonJS } }).outputText);
  writeFileSync(join(dir, 'probe.js'), probeSource);
  return (nodeFlags, arg) => {
    const r = spawnSync(process.execPath, [...nodeFlags, join(dir, 'probe.js'), arg], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout;
  };
}
