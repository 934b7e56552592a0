import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../apps/cli/src/cli-program';
import { EXIT } from '../../apps/cli/src/exit-codes';
import { ADMIN_TOKEN, PEOPLE_FIELDS, call, startService, upload, waitForRun, type Service } from '../support/service-harness';

/**
 * The operator CLI as operators run it: the built entry point (`npm run cli` runs
 * dist/apps/cli/src/main.js) in its own process. Help for the program and every command,
 * usage errors (exit 2), the admin commands against a running service, and the operator
 * commands on the stores it wrote.
 */

const ROOT = join(__dirname, '..', '..');
/** CLI_MAIN: an entry point built elsewhere (`tsc -p tsconfig.build.json --outDir <dir>` and tsc-alias), used as it is, without `npm run build`. */
const CLI = process.env.CLI_MAIN || join(ROOT, 'dist/apps/cli/src/main.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Variables of the test process that would change what the CLI does. */
const CLI_VARIABLES = ['ADMIN_TOKEN', 'SERVICE_URL', 'PORT', 'DATA_DIR', 'EVENT_STORE', 'READ_MODEL', 'BUS', 'SIGNING_SECRET'];

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLI_VARIABLES) delete base[name];
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...base, DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-args-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli ${args.join(' ')} did not exit within 20 s; stderr: ${stderr}`));
    }, 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whitespace-insensitive: help text is wrapped to the terminal's width. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const commands = (): Command[] => buildProgram().commands.filter((c) => c.name() !== 'help');

beforeAll(() => {
  if (process.env.CLI_MAIN) return;
  // The real entry point, built as `npm run cli` expects it.
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`, { cause: err });
  }
}, 180_000);

describe('operator CLI: help', () => {
  it('describes every argument and option of every command', () => {
    const names = commands().map((c) => c.name());
    expect(names).toEqual(
      expect.arrayContaining([
        'org:create',
        'invitation:create',
        'key:create',
        'key:list',
        'key:revoke',
        'webhook:set',
        'webhook:rotate-secret',
        'quota:set',
        'schema:create',
        'schema:update',
        'schema:delete',
        'provider:create',
        'provider:update',
        'provider:delete',
        'run:history',
        'readmodel:rebuild',
        'events:republish',
      ]),
    );
    for (const command of commands()) {
      expect({ command: command.name(), description: command.description() }).toEqual({
        command: command.name(),
        description: expect.stringMatching(/\w/),
      });
      for (const item of [
        ...command.registeredArguments.map((a) => [a.name(), a.description]),
        ...command.options.map((o) => [o.flags, o.description]),
      ]) {
        expect({ command: command.name(), item: item[0], description: item[1] }).toEqual({
          command: command.name(),
          item: item[0],
          description: expect.stringMatching(/\w/),
        });
      }
    }
  });

  it('lists every command and the exit codes for the program', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(EXIT.ok);
    for (const command of commands()) expect(stdout).toContain(command.name());
    expect(flat(stdout)).toContain('Exit codes: 0 success');
    expect(flat(stdout)).toContain('1 the operation failed');
    expect(flat(stdout)).toContain('2 usage error');
    // `help` is a command too, as before.
    expect((await cli(['help'])).stdout).toBe(stdout);
  });

  it("prints each command's arguments and options with their descriptions (--help and help <command>)", async () => {
    for (const command of commands()) {
      const { code, stdout, stderr } = await cli([command.name(), '--help']);
      expect({ command: command.name(), code, stderr }).toEqual({ command: command.name(), code: EXIT.ok, stderr: '' });
      expect(stdout).toContain(`Usage: npm run cli -- ${command.name()}`);
      for (const a of command.registeredArguments) expect(flat(stdout)).toContain(`${a.name()} ${flat(a.description)}`);
      for (const o of command.options) expect(flat(stdout)).toContain(`${o.flags} ${flat(o.description)}`);
    }
    const rebuild = await cli(['readmodel:rebuild', '--help']);
    expect(rebuild.stdout).toMatch(/--run <run-id>\s+rebuild only this run/);
    expect(rebuild.stdout).toMatch(/--dry-run\s+only compare and report/);
    expect(rebuild.stdout).toContain('DATA_DIR');
    expect((await cli(['help', 'readmodel:rebuild'])).stdout).toBe(rebuild.stdout);
  });
});

describe('operator CLI: usage errors exit 2 and do nothing', () => {
  it('rejects an unknown option, naming it', async () => {
    const { code, stderr, stdout } = await cli(['readmodel:rebuild', '--dry-rnu']);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("error: unknown option '--dry-rnu'");
    expect(stderr).toContain('--dry-run'); // the suggestion
    expect(stdout).toBe('');
    expect((await cli(['key:create', 'org-1', '--force'], { ADMIN_TOKEN: 't' })).stderr).toContain("unknown option '--force'");
  });

  it('rejects an unknown command, and no command at all', async () => {
    const unknown = await cli(['org:destroy', 'x']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain("error: unknown command 'org:destroy'");
    const none = await cli([]);
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain('Usage: npm run cli --');
  });

  it('rejects missing, extra and invalid arguments and options', async () => {
    const cases: Array<[string[], string]> = [
      [['key:revoke', 'org-1'], "missing required argument 'key-id'"],
      [['run:history'], "missing required argument 'run-id'"],
      [['key:create', 'org-1', 'org-2'], "too many arguments for 'key:create'"],
      [['quota:set', 'org-1', 'lots'], "value 'lots' is invalid for argument 'limit'"],
      [['schema:create', 'org-1', '/no/such/schema.json'], "is invalid for argument 'file'. Cannot read it"],
      [['events:republish', '--to', '9'], "required option '--from <position>' not specified"],
      [['events:republish', '--from', '0', '--to', '9'], "option '--from <position>' argument '0' is invalid"],
      [['events:republish', '--from', '9', '--to', '3'], '--to (3) must not be below --from (9)'],
      [['readmodel:rebuild', '--run'], "option '--run <run-id>' argument missing"],
      [['run:history', 'not-a-uuid'], "value 'not-a-uuid' is invalid for argument 'run-id'. A run id is a UUID"],
      [
        ['invitation:create', 'org-1', 'x@y.example', '--role', 'king'],
        "argument 'king' is invalid. Allowed choices are owner, admin, viewer.",
      ],
      [['key:create', 'org-1', '--name', 'n'.repeat(101)], 'It has 101 characters; at most 100 are allowed.'],
      [['help', 'nosuch'], 'error: unknown command "nosuch"'],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await cli(args, { ADMIN_TOKEN: 't', SERVICE_URL: 'http://127.0.0.1:1' });
      expect({ args, code, stderr }).toEqual({ args, code: EXIT.usage, stderr: expect.stringContaining(message) });
    }
  });

  it('refuses the operator commands on a DATA_DIR without the service stores, and creates none there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-nostore-'));
    for (const args of [
      ['run:history', '0b4e7a36-1c1d-4a59-9a52-6f3f6c1b2a10'],
      ['readmodel:rebuild'],
      ['secrets:reencrypt'],
      ['dead-letters:list'],
    ]) {
      const { code, stderr, stdout } = await cli(args, { DATA_DIR: dataDir });
      expect({ args, code, stdout }).toEqual({ args, code: EXIT.usage, stdout: '' });
      expect(flat(stderr)).toContain(`in ${dataDir} (DATA_DIR=${dataDir})`);
      expect(flat(stderr)).toContain("DATA_DIR must point at the service's data folder");
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('blames PORT, not SERVICE_URL, for a PORT that is no port', async () => {
    const { code, stderr } = await cli(['key:list', 'org-1'], { ADMIN_TOKEN: 't', PORT: 'abc' });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('PORT is not a port number (1-65535): got "abc".');
  });

  it('needs ADMIN_TOKEN for the admin commands (checked before anything is sent)', async () => {
    const { code, stderr, stdout } = await cli(['key:create', 'org-1'], { SERVICE_URL: 'http://127.0.0.1:1' });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('ADMIN_TOKEN is not set');
    expect(stdout).toBe('');
  });

  it('refuses events:republish on the embedded bus and an invalid configuration', async () => {
    const embedded = await cli(['events:republish', '--from', '1', '--to', '2']);
    expect(embedded.code).toBe(EXIT.usage);
    expect(embedded.stderr).toContain('events:republish sends to Kafka (BUS=kafka, KAFKA_BROKERS)');
    const badStore = await cli(['readmodel:rebuild'], { EVENT_STORE: 'paper' });
    expect(badStore.code).toBe(EXIT.usage);
    expect(badStore.stderr).toContain('EVENT_STORE must be sqlite or eventstoredb');
  });
});

describe('operator CLI: commands against a running service and its stores', () => {
  let svc: Service;
  let stopped = false;
  let runId: string;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    if (!stopped) await svc?.stop();
  });

  const admin = (args: string[]) => cli(args, { ADMIN_TOKEN, SERVICE_URL: `${svc.baseUrl}/` });
  const json = (r: CliResult) => {
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: EXIT.ok, stderr: '' });
    return JSON.parse(r.stdout);
  };

  it('runs the admin commands; an error answer exits 1, an unreachable service exits 1', async () => {
    const org = json(await admin(['org:create', 'Acme CLI']));
    expect(org).toMatchObject({ name: 'Acme CLI', webhook_url: null, api_key: expect.any(String), webhook_secret: expect.any(String) });

    const invitation = json(await admin(['invitation:create', org.id, 'Owner@Example.com'])).data;
    expect(invitation).toMatchObject({ email: 'owner@example.com', role: 'owner', url: expect.stringContaining('/console/invitations/') });
    expect(json(await admin(['invitation:create', org.id, 'viewer@example.com', '--role', 'viewer'])).data.role).toBe('viewer');

    const key = json(await admin(['key:create', org.id]));
    expect(key).toEqual({ id: expect.any(String), api_key: expect.any(String), prefix: expect.any(String), name: null });
    expect(await admin(['key:revoke', org.id, key.id])).toEqual({
      code: EXIT.ok,
      stdout: `Revoked API key ${key.id} of organization ${org.id}.\n`,
      stderr: '',
    });
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: key.api_key })).status).toBe(401);

    expect(json(await admin(['quota:set', org.id, '5']))).toEqual({ review_preparations: 5, used: 0 });
    expect(json(await admin(['quota:set', org.id, 'null']))).toEqual({ review_preparations: null, used: 0 });
    expect(json(await admin(['webhook:set', org.id, 'null']))).toEqual({ webhook_url: null });
    expect(json(await admin(['webhook:rotate-secret', org.id])).webhook_secret).toMatch(/^whsec_/);

    const dir = mkdtempSync(join(tmpdir(), 'cli-schema-'));
    writeFileSync(join(dir, 'people.json'), JSON.stringify({ name: 'People', fields: PEOPLE_FIELDS }));
    writeFileSync(join(dir, 'renamed.json'), JSON.stringify({ name: 'Persons', fields: PEOPLE_FIELDS }));
    const schema = json(await admin(['schema:create', org.id, join(dir, 'people.json')])).data;
    expect(json(await admin(['schema:update', org.id, schema.id, join(dir, 'renamed.json')])).data.name).toBe('Persons');
    const extra = json(await admin(['schema:create', org.id, join(dir, 'people.json')])).data;
    expect(await admin(['schema:delete', org.id, extra.id])).toEqual({
      code: EXIT.ok,
      stdout: `Deleted schema ${extra.id} of organization ${org.id}.\n`,
      stderr: '',
    });

    const missing = await admin(['schema:delete', org.id, extra.id]);
    expect(missing.code).toBe(EXIT.failed);
    expect(missing.stderr).toContain('The admin API answered 404');
    expect(JSON.parse(missing.stdout)).toHaveProperty('error');
    writeFileSync(join(dir, 'broken.json'), '{"name": "People",');
    const broken = await admin(['schema:create', org.id, join(dir, 'broken.json')]);
    expect(broken.code).toBe(EXIT.usage); // a bad argument: nothing is sent
    expect(broken.stderr).toContain("is invalid for argument 'file'. It is not valid JSON");
    const refused = await cli(['key:create', org.id], { ADMIN_TOKEN: 'wrong', SERVICE_URL: svc.baseUrl });
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain('The admin API answered 401');

    const unreachable = await cli(['key:create', org.id], { ADMIN_TOKEN, SERVICE_URL: 'http://127.0.0.1:1' });
    expect(unreachable.code).toBe(EXIT.failed);
    expect(unreachable.stderr).toContain('Cannot reach the service at http://127.0.0.1:1: the connection was refused');

    // A run for the operator commands below, by the organization the CLI created.
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.api_key,
      body: { schema_id: schema.id, filename: 'people.csv' },
    });
    expect(created.status).toBe(201);
    await upload(created.body, 'E-mail,Age\nada@example.com,36\n');
    await waitForRun(svc, org.api_key, created.body.id, (r) => r.review_state === 'active');
    runId = created.body.id;
    await svc.stop();
    stopped = true;
  });

  const operator = (args: string[]) => cli(args, { DATA_DIR: svc.config.dataDir });

  it('run:history prints the events of a run (lines or --json); an unknown run exits 1', async () => {
    const lines = await operator(['run:history', runId]);
    expect(lines.code).toBe(EXIT.ok);
    expect(lines.stdout.split('\n')[0]).toMatch(/^#0 {2}pos \d+ {2}\S+ {2}RunCreated/);
    const events = json(await operator(['run:history', runId, '--json']));
    expect(events.map((e: { revision: number }) => e.revision)).toEqual(events.map((_: unknown, i: number) => i));
    const none = await operator(['run:history', '0b4e7a36-1c1d-4a59-9a52-6f3f6c1b2a10']);
    expect(none.code).toBe(EXIT.failed);
    expect(none.stderr).toContain('No events for run 0b4e7a36-1c1d-4a59-9a52-6f3f6c1b2a10.');
    // A run id in upper case is the same run.
    expect((await operator(['run:history', runId.toUpperCase(), '--json'])).stdout).toBe(
      (await operator(['run:history', runId, '--json'])).stdout,
    );
  });

  it('readmodel:rebuild reports (--dry-run, --run) and changes nothing on a consistent read model', async () => {
    expect(json(await operator(['readmodel:rebuild', '--dry-run']))).toEqual({
      dry_run: true,
      runs: 1,
      changed: 0,
      changed_runs: [],
      newer_in_read_model: [],
      removed_runs: [],
      malformed_events: 0,
      malformed: [],
    });
    expect(json(await operator(['readmodel:rebuild', '--run', runId]))).toMatchObject({ dry_run: false, runs: 1, changed: 0 });
  });
});
