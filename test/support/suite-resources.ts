import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Everything a test suite starts (services, servers, browsers, child processes) is
 * registered here when it starts, and closed after the suite on every path: also when a
 * `beforeAll` failed half-way and the suite's own `afterAll` meets undefined variables.
 * `jest-setup.ts` closes what is still open after each test file, so Jest never waits
 * on a forgotten handle and the test command exits by itself.
 */
type Close = () => unknown; // a value or a promise; awaited either way

interface Resource {
  name: string;
  close: Close;
}

/** A close that hangs must not hang the run: each gets this long, then the next one goes. */
const CLOSE_TIMEOUT_MS = 10_000;

const open = new Set<Resource>();

/**
 * Registers a started resource. Returns its close function: idempotent (a second call
 * waits for the first), and it takes the resource off the list.
 */
export function track(name: string, close: Close): () => Promise<void> {
  const resource: Resource = { name, close };
  open.add(resource);
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      open.delete(resource);
      await close();
    })();
    return closing;
  };
}

/** Closes every resource still open, newest first; reports failures after trying all of them. */
export async function closeAllTracked(): Promise<void> {
  const failures: string[] = [];
  for (const resource of [...open].reverse()) {
    open.delete(resource);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not close within ${CLOSE_TIMEOUT_MS} ms`)), CLOSE_TIMEOUT_MS);
    });
    try {
      await Promise.race([Promise.resolve().then(resource.close), timeout]);
    } catch (err) {
      failures.push(`${resource.name}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  if (failures.length) throw new Error(`Some test resources failed to close:\n${failures.join('\n')}`);
}

/** How many resources are open (for the cleanup's own test). */
export const openResourceCount = (): number => open.size;

/** Listens on an ephemeral loopback port; the server is tracked, and its close ends open connections too. */
export async function listenOnLoopback(server: Server, name: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const close = track(name, () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/** Spawns a child process that is killed (SIGKILL) after the suite if it is still running. */
export function spawnTracked(name: string, command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  track(name, () => killChild(child));
  return child;
}

function killChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
