import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, call, freePort, setupOrganization, startService, waitForRun } from '../support/service-harness';

/**
 * A stop (SIGTERM: Nest closes the application) takes no new connection and lets the requests in flight finish: an
 * upload under way is answered and kept, not cut (docs/operations.md, "Stopping").
 */
/** Headers and a first piece of a body that never comes whole: how the request ended (an error code, or its answer). */
function unfinishedRequest(url: string, method: string, headers: Record<string, string | number>, first: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const sent = request(url, { method, headers });
    sent.on('response', (res) => resolve(`answered ${res.statusCode}`));
    sent.on('error', (err: Error & { code?: string }) => resolve(err.code ?? err.message));
    sent.write(first);
  });
}

describe('stopping the service', () => {
  it('answers an upload under way before it stops, takes no new connection meanwhile, and keeps the file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stopping-'));
    let svc = await startService({}, dataDir);
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv' },
    });
    const body = Buffer.from(`email,age\n${Array.from({ length: 2000 }, (_, i) => `p${i}@example.com,${i % 90}`).join('\n')}\n`);
    const half = Math.floor(body.length / 2);

    // The first half sent, the stop begins, then the rest.
    const stopping: { done?: Promise<void> } = {};
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const put = request(
        created.body.upload.url,
        { method: 'PUT', headers: { ...created.body.upload.headers, 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        },
      );
      put.on('error', reject);
      // The stop begins once the service has the request (a request whose headers come after it is refused, 503).
      put.write(body.subarray(0, half), () =>
        setTimeout(() => {
          stopping.done = svc.stop();
          setTimeout(() => put.end(body.subarray(half)), 300);
        }, 300),
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Meanwhile the listener is closed: a new connection is refused.
    await expect(fetch(`${svc.baseUrl}/healthz`)).rejects.toThrow();

    await expect(answer).resolves.toEqual({ status: 200, connection: 'close' });
    await stopping.done;

    // The file was kept whole: after a start the run is read from it.
    svc = await startService({ PORT: String(svc.config.port) }, dataDir);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    expect(ready.total_rows).toBe(2000);
    await svc.stop();
  });

  it('answers a request under way on the admin listener too, before the stores close', async () => {
    const adminPort = await freePort();
    const svc = await startService({ ADMIN_HOST: '127.0.0.1', ADMIN_PORT: String(adminPort) });
    const body = JSON.stringify({ name: 'Made while stopping' });
    const stopping: { done?: Promise<void> } = {};
    const answer = new Promise<number>((resolve, reject) => {
      const post = request(
        `http://127.0.0.1:${adminPort}/admin/v1/organizations`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      post.on('error', reject);
      post.write(body.slice(0, 5), () =>
        setTimeout(() => {
          stopping.done = svc.stop();
          setTimeout(() => post.end(body.slice(5)), 300);
        }, 300),
      );
    });
    await expect(answer).resolves.toBe(201);
    await stopping.done;
  });

  it('closes a connection whose request does not finish once HTTP_DRAIN_MS has passed, so no client holds the stop', async () => {
    const svc = await startService({ HTTP_DRAIN_MS: '400' });
    const org = await setupOrganization(svc);
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'people.csv' },
    });
    const cut = unfinishedRequest(
      created.body.upload.url,
      'PUT',
      { ...created.body.upload.headers, 'content-length': 1_000_000 },
      'email,age\n',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const began = Date.now();
    await svc.stop();
    const took = Date.now() - began;
    await expect(cut).resolves.toBe('ECONNRESET');
    expect(took).toBeGreaterThanOrEqual(350);
    // Seconds wide: only a stop that waited on the client for good fails.
    expect(took).toBeLessThan(8000);
  });

  it('cuts a request on the admin listener that does not finish at the same time, though the public one closed at once', async () => {
    const adminPort = await freePort();
    // The body deadline far past the drain: only the drain can end this request in time.
    const svc = await startService({
      ADMIN_HOST: '127.0.0.1',
      ADMIN_PORT: String(adminPort),
      HTTP_DRAIN_MS: '400',
      HTTP_BODY_TIMEOUT_MS: '60000',
    });
    const cut = unfinishedRequest(
      `http://127.0.0.1:${adminPort}/admin/v1/organizations`,
      'POST',
      { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': 1000 },
      '{"name":',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const began = Date.now();
    await svc.stop();
    const took = Date.now() - began;
    await expect(cut).resolves.toBe('ECONNRESET');
    expect(took).toBeLessThan(8000);
  });
});
