#!/usr/bin/env node
/**
 * Starts every app's built entry point (dist/apps/<app>/src/main.js) far enough to show that
 * it needs nothing but its engines: its modules are installed (after `npm prune --omit=dev`
 * too) and the configuration a deployment gives it is accepted.
 *
 * - Each app that runs as its own process starts with the distributed configuration of
 *   deploy/k8s (NODE_ENV=production, EventStoreDB, Kafka, MongoDB, S3) whose engine addresses
 *   are stand-in TCP listeners on loopback. The app passes once it opens a connection to one
 *   of them while still running: by then its modules loaded, the configuration was accepted
 *   and the engine's client (loaded only when configured) was required. An app that exits
 *   first fails the check, with its output.
 * - The one-process service starts on the embedded engines (SQLite, local files: the image's
 *   default) in a temporary DATA_DIR and passes when /healthz answers 200.
 * - The operator CLI prints its help.
 *
 * Run by scripts/build-image.sh after the dev dependencies are dropped, i.e. in the image
 * build and in test/deploy/image-build.spec.ts. `node scripts/check-entry-points.js [app...]`.
 */
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const PROCESS_APPS = ['gateway', 'relay', 'projector', 'ingestion', 'mapping', 'output', 'notifier'];
const TIMEOUT_MS = Number(process.env.ENTRY_POINT_TIMEOUT_MS || 60_000);
// The memory flags and malloc settings `npm start` passes (package.json's config).
const { serviceNodeFlags, serviceMallocEnv } = require('./service-memory-settings');
const entry = (app) => join(root, 'dist', 'apps', app, 'src', 'main.js');

/** A TCP listener that stands in for an engine: it records who connected and holds the socket. */
async function standIn(name, connected) {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    connected(name);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: server.address().port,
    close: () =>
      new Promise((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

function stop(child) {
  return new Promise((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) return ok();
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });
}

function startNode(app, env) {
  const child = spawn(process.execPath, [...serviceNodeFlags(), entry(app)], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return { child, output: () => output };
}

const baseEnv = (dataDir) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME ?? tmpdir(),
  DATA_DIR: dataDir,
  LOG_FORMAT: 'json',
  LOG_LEVEL: 'info',
  ...serviceMallocEnv(),
  ADMIN_TOKEN: 'entry-point-check-0123456789abcdef0123456789abcdef',
  SIGNING_SECRET: 'entry-point-check-signing-secret',
  SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
});

/** A process app on the distributed engines, which are stand-ins on loopback. */
async function checkProcessApp(app) {
  let reached = null;
  let onReach = () => {};
  const connected = (name) => {
    reached ??= name;
    onReach();
  };
  const engines = {
    eventstoredb: await standIn('EventStoreDB', connected),
    kafka: await standIn('Kafka', connected),
    mongo: await standIn('MongoDB', connected),
    s3: await standIn('S3', connected),
  };
  const dataDir = mkdtempSync(join(tmpdir(), `entry-${app}-`));
  const env = {
    ...baseEnv(dataDir),
    NODE_ENV: 'production',
    APP: app,
    PORT: '0',
    HEALTH_PORT: '0',
    EVENT_STORE: 'eventstoredb',
    EVENTSTORE_URL: `esdb://127.0.0.1:${engines.eventstoredb.port}?tls=false`,
    BUS: 'kafka',
    KAFKA_BROKERS: `127.0.0.1:${engines.kafka.port}`,
    READ_MODEL: 'mongo',
    MONGO_URL: `mongodb://127.0.0.1:${engines.mongo.port}/transformation?directConnection=true&serverSelectionTimeoutMS=${TIMEOUT_MS}`,
    BLOB_STORE: 's3',
    S3_BUCKET: 'transformation-runs',
    S3_REGION: 'us-east-1',
    S3_ENDPOINT: `http://127.0.0.1:${engines.s3.port}`,
    S3_ACCESS_KEY_ID: 'entry-point-check',
    S3_SECRET_ACCESS_KEY: 'entry-point-check',
    PUBLIC_BASE_URL: 'https://transform.example.com',
  };
  const { child, output } = startNode(app, env);
  try {
    await new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`reached no engine within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      onReach = () => {
        clearTimeout(timer);
        // Give a crash right after the first connection (a module required next) a moment to show.
        setTimeout(ok, 300);
      };
      if (reached) onReach();
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`exited (${signal ?? `code ${code}`}) before reaching its engines`));
      });
    });
    if (child.exitCode !== null) throw new Error(`exited (code ${child.exitCode}) right after reaching ${reached}`);
    return `reached ${reached}`;
  } catch (error) {
    error.message += `\n--- output of ${app} ---\n${output().slice(-4000)}`;
    throw error;
  } finally {
    await stop(child);
    await Promise.all(Object.values(engines).map((e) => e.close()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function freePort() {
  const server = net.createServer();
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

/** The one-process service on the embedded engines, as the image starts by default. */
async function checkStandalone() {
  const dataDir = mkdtempSync(join(tmpdir(), 'entry-standalone-'));
  const port = await freePort();
  const { child, output } = startNode('standalone', { ...baseEnv(dataDir), NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port) });
  try {
    const deadline = Date.now() + TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`exited (code ${child.exitCode}) before answering /healthz`);
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return 'answered /healthz on the embedded engines';
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`did not answer /healthz within ${TIMEOUT_MS} ms`);
  } catch (error) {
    error.message += `\n--- output of standalone ---\n${output().slice(-4000)}`;
    throw error;
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function checkCli() {
  const r = spawnSync(process.execPath, [entry('cli'), '--help'], { cwd: root, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`--help exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  return 'printed its help';
}

async function main() {
  const only = process.argv.slice(2);
  const checks = [
    ...PROCESS_APPS.map((app) => [app, () => checkProcessApp(app)]),
    ['standalone', checkStandalone],
    ['cli', checkCli],
  ].filter(([app]) => only.length === 0 || only.includes(app));
  let failed = 0;
  for (const [app, check] of checks) {
    const started = Date.now();
    try {
      console.log(`entry point ${app}: ${await check()} (${Date.now() - started} ms)`);
    } catch (error) {
      failed++;
      console.error(`entry point ${app} FAILED: ${error.message}`);
    }
  }
  if (failed) {
    console.error(`${failed} entry point(s) cannot start from this build.`);
    process.exit(1);
  }
}

void main();
