import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-program';
import { EXIT } from './exit-codes';

/**
 * The CLI in this process (runCli): what it refuses before doing anything (exit 2), and
 * what it says when it has done something or could not reach the service.
 */

/** Variables of the test process that would change what the CLI does. */
const CLI_VARIABLES = [
  'ADMIN_TOKEN',
  'SERVICE_URL',
  'PORT',
  'DATA_DIR',
  'EVENT_STORE',
  'READ_MODEL',
  'BUS',
  'SIGNING_SECRET',
  'SECRETS_KEY',
];

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { ...process.env };
  let stdout = '';
  let stderr = '';
  const spies = [
    jest.spyOn(console, 'log').mockImplementation((...m: unknown[]) => void (stdout += `${m.join(' ')}\n`)),
    jest.spyOn(console, 'error').mockImplementation((...m: unknown[]) => void (stderr += `${m.join(' ')}\n`)),
    jest.spyOn(process.stdout, 'write').mockImplementation((m) => ((stdout += String(m)), true)),
    jest.spyOn(process.stderr, 'write').mockImplementation((m) => ((stderr += String(m)), true)),
  ];
  try {
    for (const name of CLI_VARIABLES) delete process.env[name];
    Object.assign(process.env, env);
    return { code: await runCli(args), stdout, stderr };
  } finally {
    for (const spy of spies) spy.mockRestore();
    process.env = saved;
  }
}

const RUN = '0b4e7a36-1c1d-4a59-9a52-6f3f6c1b2a10';

describe('operator commands on a DATA_DIR without the service stores', () => {
  it.each([
    [['run:history', RUN], 'event store'],
    [['readmodel:rebuild'], 'event store'],
    [['secrets:reencrypt'], 'read model'],
    [['dead-letters:list'], 'dead letters'],
    [['dead-letters:replay', 'projector/e1'], 'dead letters'],
    [['data:backup', join(tmpdir(), 'cli-never-made-backup')], 'event store'],
  ])('%j is refused (exit 2), says where it looked, and creates nothing', async (args, store) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-nostore-'));
    const { code, stdout, stderr } = await cli(args, { DATA_DIR: dataDir });
    expect({ code, stdout }).toEqual({ code: EXIT.usage, stdout: '' });
    expect(stderr).toContain(`error: No ${store} in ${dataDir} (DATA_DIR=${dataDir})`);
    expect(stderr).toContain("DATA_DIR must point at the service's data folder");
    expect(readdirSync(dataDir)).toEqual([]);
    expect(existsSync(join(tmpdir(), 'cli-never-made-backup'))).toBe(false);
    const missing = join(dataDir, 'typo');
    expect((await cli(args, { DATA_DIR: missing })).code).toBe(EXIT.usage);
    expect(existsSync(missing)).toBe(false);
  });

  it('events:republish with BUS=kafka too (and still says first that it needs Kafka)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-nostore-'));
    const kafka = { DATA_DIR: dataDir, BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:1' };
    const refused = await cli(['events:republish', '--from', '1', '--to', '2'], kafka);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain(`No event store in ${dataDir}`);
    expect((await cli(['events:republish', '--from', '1', '--to', '2'], { DATA_DIR: dataDir })).stderr).toContain(
      'events:republish sends to Kafka',
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('usage errors are found before anything is sent or opened', () => {
  let requests = 0;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      res.writeHead(req.method === 'DELETE' ? 204 : 201, { 'content-type': 'application/json' });
      res.end(req.method === 'DELETE' ? undefined : '{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (requests = 0));

  const admin = (args: string[]) => cli(args, { ADMIN_TOKEN: 't', SERVICE_URL: url });

  it('a role that is not owner, admin or viewer', async () => {
    const { code, stderr } = await admin(['invitation:create', 'org-1', 'x@y.example', '--role', 'king']);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("option '--role <role>' argument 'king' is invalid. Allowed choices are owner, admin, viewer.");
    expect((await admin(['invitation:create', 'org-1', 'x@y.example', '--role', 'viewer'])).code).toBe(EXIT.ok);
    expect(requests).toBe(1);
  });

  it('a key name longer than 100 characters (trimmed, as the API counts)', async () => {
    const { code, stderr } = await admin(['key:create', 'org-1', '--name', 'n'.repeat(101)]);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("option '--name <name>' argument");
    expect(stderr).toContain('It has 101 characters; at most 100 are allowed.');
    expect((await admin(['key:create', 'org-1', '--name', ` ${'n'.repeat(100)} `])).code).toBe(EXIT.ok);
    // 100 emoji are 200 UTF-16 units: a hundred characters to the admin API (validator's isLength), so taken here too.
    expect((await admin(['key:create', 'org-1', '--name', '\u{1F511}'.repeat(100)])).code).toBe(EXIT.ok);
    const emoji = await admin(['key:create', 'org-1', '--name', '\u{1F511}'.repeat(101)]);
    expect(emoji.code).toBe(EXIT.usage);
    expect(emoji.stderr).toContain('It has 101 characters; at most 100 are allowed.');
    expect(requests).toBe(2);
  });

  it('a run id that is not a UUID (run:history, --run); one in upper case is taken', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-runid-'));
    for (const args of [
      ['run:history', 'not-a-uuid'],
      ['readmodel:rebuild', '--run', 'x'],
      ['events:republish', '--from', '1', '--to', '2', '--run', 'x'],
    ]) {
      const { code, stderr } = await cli(args, { DATA_DIR: dataDir });
      expect({ args, code }).toEqual({ args, code: EXIT.usage });
      expect(stderr).toContain('A run id is a UUID');
    }
    expect(readdirSync(dataDir)).toEqual([]);
    // Past the argument: refused for the missing store, not for the id.
    expect((await cli(['run:history', RUN.toUpperCase()], { DATA_DIR: dataDir })).stderr).toContain('No event store');
  });

  it('help for a command that does not exist says so first', async () => {
    const { code, stderr } = await cli(['help', 'nosuch']);
    expect(code).toBe(EXIT.usage);
    expect(stderr.indexOf('error: unknown command "nosuch"')).toBe(0);
    expect(stderr).toContain('Usage: npm run cli --');
    const known = await cli(['help', 'key:create']);
    expect({ code: known.code, stderr: known.stderr }).toEqual({ code: EXIT.ok, stderr: '' });
  });

  it('a PORT that is not a port number, without SERVICE_URL, is blamed on PORT', async () => {
    const { code, stderr } = await cli(['key:list', 'org-1'], { ADMIN_TOKEN: 't', PORT: 'abc' });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('PORT is not a port number (1-65535): got "abc".');
    expect(stderr).not.toContain('SERVICE_URL must be');
  });
});

describe('admin commands say what they did, or why the service did not answer', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each([
    [['key:revoke', 'org-1', 'key-1'], 'Revoked API key key-1 of organization org-1.'],
    [['schema:delete', 'org-1', 'schema-1'], 'Deleted schema schema-1 of organization org-1.'],
    [['provider:delete', 'org-1', 'provider-1'], 'Deleted AI provider provider-1 of organization org-1.'],
  ])('%j prints one line on success', async (args, line) => {
    expect(await cli(args, { ADMIN_TOKEN: 't', SERVICE_URL: url })).toEqual({ code: EXIT.ok, stdout: `${line}\n`, stderr: '' });
  });

  it('a refused connection is said as such, a port fetch never uses too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await cli(['key:list', 'org-1'], { ADMIN_TOKEN: 't', SERVICE_URL: `http://127.0.0.1:${port}` });
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain(`Cannot reach the service at http://127.0.0.1:${port}: the connection was refused`);
    const blocked = await cli(['key:list', 'org-1'], { ADMIN_TOKEN: 't', SERVICE_URL: 'http://localhost:1' });
    expect(blocked.code).toBe(EXIT.failed);
    expect(blocked.stderr).toContain(
      'Cannot reach the service at http://localhost:1: the connection was refused: port 1 is one fetch never connects to',
    );
    expect(blocked.stderr).not.toContain('bad port');
  });
});
