import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { DIRECTORY, type Directory } from '@app/directory';
import { ADMIN_TOKEN, call, eventually, freePort, setupOrganization, startService, type Service, upload } from '../support/service-harness';

/**
 * The HTTP edge (apps/gateway/src/http/http-edge.ts, docs/security.md "HTTP edge"):
 * authentication before the body, bounded connections and bodies, failed-authentication
 * throttling, the admin listener, framework errors in the envelope, security headers.
 * Assertions are about liveness and timing (the service runs inside Jest's process).
 */

const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RawAnswer {
  status: number | null;
  headers: Record<string, string>;
  body: any;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Sends `head` (and then each of `body` parts, `gapMs` apart) on a fresh connection to
 * 127.0.0.1 and reads until the server closes it (or `timeoutMs` passes: then it fails).
 */
function raw(
  port: number,
  head: string,
  {
    body = [],
    gapMs = 0,
    timeoutMs = 15_000,
    localAddress,
  }: { body?: Buffer[]; gapMs?: number; timeoutMs?: number; localAddress?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket: Socket = connect({ host: '127.0.0.1', port, localAddress });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined); // EPIPE/ECONNRESET when the server closes while we still send
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(chunks).toString('latin1')), closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(head);
      let i = 0;
      const next = () => {
        if (i >= body.length || socket.destroyed) return;
        socket.write(body[i++]);
        if (gapMs > 0) setTimeout(next, gapMs);
        else next();
      };
      next();
    });
  });
}

function parse(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end < 0) return { status: null, headers: {}, body: null };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]),
  );
  let body: any = text.slice(end + 4);
  try {
    body = JSON.parse(body);
  } catch {
    /* not JSON */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const postHead = (path: string, length: number, token?: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n` +
  (token ? `Authorization: Bearer ${token}\r\n` : '') +
  extra +
  '\r\n';

/** A request from a chosen loopback source address (the failed-authentication throttle counts per address). */
function from(
  localAddress: string,
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: u.port,
        path: u.pathname + u.search,
        method: init.method ?? (payload ? 'POST' : 'GET'),
        localAddress,
        agent: false,
        headers: {
          ...init.headers,
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const envelope = (code: string) => ({
  error: expect.objectContaining({ code, message: expect.any(String), type: expect.any(String), request_id: expect.stringMatching(UUID) }),
});

describe('HTTP edge: bounded resources', () => {
  // Seconds, not tenths: what must happen "at once" is told from what waits for a deadline by the
  // deadline's length, and a loaded CI machine can take a second to answer 100 connections.
  const BODY_TIMEOUT_MS = 4000;
  const HEADERS_TIMEOUT_MS = 1000;
  const UPLOAD_IDLE_MS = 2000;
  /** The least upload rate, over windows of UPLOAD_RATE_WINDOW_MS: 300 bytes a window. */
  const UPLOAD_MIN_BYTES_PER_SECOND = 100;
  const UPLOAD_RATE_WINDOW_MS = 3000;
  /** Room for a stalled machine past a deadline; a connection the server never closed fails sooner anyway (raw's 15 s). */
  const LATE_MS = 5000;
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let port: number;
  let runId: string;
  beforeAll(async () => {
    svc = await startService({
      HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_MS),
      HTTP_UPLOAD_MIN_BYTES_PER_SECOND: String(UPLOAD_MIN_BYTES_PER_SECOND),
      HTTP_UPLOAD_RATE_WINDOW_MS: String(UPLOAD_RATE_WINDOW_MS),
    });
    port = Number(new URL(svc.baseUrl).port);
    org = await setupOrganization(svc);
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'a.csv' },
    });
    expect(run.status).toBe(201);
    runId = run.body.id;
  });
  afterAll(() => svc.stop());

  const showRun = () => call(`${svc.baseUrl}/v1/transformations/${runId}`, { token: org.apiKey });
  /** 1 MiB announced, 1 MiB minus one byte sent: the body never completes. */
  const almost = Buffer.alloc(MiB - 1, 0x20);

  it('without a key, 100 connections announcing 1 MiB JSON bodies get 401 at once and are closed, unread; the service answers meanwhile and afterwards', async () => {
    const started = Date.now();
    const answers = Array.from({ length: 100 }, () =>
      raw(port, postHead('/v1/transformations/raw', MiB), { body: [almost], timeoutMs: 10_000 }),
    );
    expect((await showRun()).status).toBe(200);
    const done = await Promise.all(answers);
    // Every connection is closed well before any body deadline: nothing waited for a body.
    expect(Math.max(...done.map((a) => a.closedAfterMs))).toBeLessThan(BODY_TIMEOUT_MS);
    const statuses = done.map((a) => a.status).filter((s) => s !== null);
    expect(statuses.length).toBeGreaterThan(0); // (a reset can hide an answer from a client still sending)
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await showRun()).status).toBe(200);
  });

  it('without a key, the 401 comes before any body byte is sent (the body is never waited for)', async () => {
    const answer = await raw(port, postHead('/v1/transformations/raw', MiB), { timeoutMs: 5000 });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(envelope('unauthenticated'));
    expect(answer.headers['x-request-id']).toBe(answer.body.error.request_id);
    expect(answer.headers.connection).toBe('close');
    expect(answer.closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS);
    // The same for the admin API, with a malformed body.
    const admin = await raw(port, postHead('/admin/v1/organizations', 10, undefined) + '{"name":', { timeoutMs: 5000 });
    expect(admin.status).toBe(401);
  });

  it('with a valid key, 100 such connections: past the bytes-in-flight cap 503 at once, the others 408 at the body deadline; the service answers meanwhile and afterwards', async () => {
    const answers = Array.from({ length: 100 }, () => raw(port, postHead('/v1/transformations/raw', MiB, org.apiKey), { body: [almost] }));
    await new Promise((r) => setTimeout(r, 300));
    expect((await showRun()).status).toBe(200);
    const done = await Promise.all(answers);
    const counts = done.reduce<Record<string, number>>((acc, a) => ({ ...acc, [String(a.status)]: (acc[String(a.status)] ?? 0) + 1 }), {});
    // 16 MiB in flight by default: 16 bodies admitted (then cut at the deadline), the rest refused at once.
    expect(counts['503']).toBeGreaterThanOrEqual(80);
    expect(counts['408']).toBeGreaterThan(0);
    expect(Object.keys(counts).every((s) => ['503', '408', 'null'].includes(s))).toBe(true);
    expect(Math.max(...done.map((a) => a.closedAfterMs))).toBeLessThan(BODY_TIMEOUT_MS + LATE_MS);
    // Refused at once: no 503 waited for the body deadline.
    expect(Math.max(...done.filter((a) => a.status === 503).map((a) => a.closedAfterMs))).toBeLessThan(BODY_TIMEOUT_MS);
    const busy = done.find((a) => a.status === 503)!;
    expect(busy.body).toEqual(envelope('service_unavailable'));
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await showRun()).status).toBe(200);
    // The cap was given back: a new JSON request is served.
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'b.csv' },
    });
    expect(created.status).toBe(201);
  });

  it('each request gives its share of the bytes-in-flight cap back when answered (sequential 1 MiB bodies on a kept-alive connection)', async () => {
    const big = JSON.stringify({ schema_id: org.schemaId, content: 'x'.repeat(MiB - 100) });
    for (let i = 0; i < 24; i++) {
      const res = await call(`${svc.baseUrl}/v1/transformations/raw`, { token: org.apiKey, raw: big });
      expect(res.status).toBe(422); // content too long: read, parsed and validated, never refused as busy
    }
  });

  it('a slow body (headers and part of it, then nothing) is answered 408 and closed at HTTP_BODY_TIMEOUT_MS', async () => {
    const answer = await raw(port, postHead('/v1/transformations/raw', 100, org.apiKey), { body: [Buffer.from('{"content":')] });
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual(envelope('request_timeout'));
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(answer.closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS + LATE_MS);
    expect((await showRun()).status).toBe(200);
  });

  it('slow headers are answered 408 in the envelope and closed at HTTP_HEADERS_TIMEOUT_MS', async () => {
    const answer = await raw(port, 'GET /v1/schemas HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual(envelope('request_timeout'));
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(answer.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_MS);
  });

  it('a request answered before its body arrived is closed with its answer, also on a keep-alive connection (no keep-alive timeout takes over)', async () => {
    const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      body: { schema_id: org.schemaId, filename: 'k.csv' },
    });
    const u = new URL(run.body.upload.url);
    // Keep-alive (no Connection: close), 100 bytes announced, 10 sent, then silence.
    const put = (path: string) => `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: 100\r\n\r\n`;
    const partial = [Buffer.from('email\na@b.')];
    const forged = new URL(u);
    forged.searchParams.set('signature', 'forged');
    const badSignature = await raw(port, put(forged.pathname + forged.search), {
      body: partial,
      timeoutMs: 5000,
      localAddress: '127.0.0.41',
    });
    expect(badSignature.status).toBe(403);
    expect(badSignature.headers.connection).toBe('close');
    expect(badSignature.closedAfterMs).toBeLessThan(UPLOAD_IDLE_MS);
    // An upload the run does not expect any more (its file is there and these bytes differ): answered at once, closed.
    expect((await upload(run.body, 'email\nx@y.io\n')).status).toBe(200);
    const refused = await raw(port, put(u.pathname + u.search), { body: partial, timeoutMs: 5000 });
    expect(refused.status).toBe(409);
    expect(refused.closedAfterMs).toBeLessThan(UPLOAD_IDLE_MS);
  });

  it('an upload to the signed /files URL may take longer than the JSON body deadline while it advances; a stalled one is closed after HTTP_UPLOAD_IDLE_TIMEOUT_MS, a trickle below HTTP_UPLOAD_MIN_BYTES_PER_SECOND at the end of its window', async () => {
    const newRun = async () => {
      const run = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        body: { schema_id: org.schemaId, filename: 'p.csv' },
      });
      expect(run.status).toBe(201);
      return run.body;
    };
    const putHead = (uploadUrl: string, length: number) => {
      const u = new URL(uploadUrl);
      return `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
    };
    const csv = Buffer.from(`email,first_name\n${Array.from({ length: 200 }, (_, i) => `u${i}@x.io,U${i}`).join('\n')}\n`);
    const parts = Array.from({ length: 12 }, (_, i) =>
      csv.subarray(Math.floor((i * csv.length) / 12), Math.floor(((i + 1) * csv.length) / 12)),
    );

    // 12 parts 450 ms apart: about 5 s in all, past the 4 s JSON deadline, never idle for 2 s.
    const slow = await newRun();
    const advancing = await raw(port, putHead(slow.upload.url, csv.length), { body: parts, gapMs: 450 });
    expect(advancing.status).toBe(200);
    expect(advancing.closedAfterMs).toBeGreaterThan(BODY_TIMEOUT_MS);

    // Half the file, then silence: closed after the idle timeout, and the run still takes a whole upload.
    const stalled = await newRun();
    const cut = await raw(port, putHead(stalled.upload.url, csv.length), { body: parts.slice(0, 6) });
    expect(cut.status).toBeNull();
    expect(cut.closedAfterMs).toBeGreaterThanOrEqual(UPLOAD_IDLE_MS - 100);
    expect(cut.closedAfterMs).toBeLessThan(UPLOAD_IDLE_MS + LATE_MS);
    const again = await raw(port, putHead(stalled.upload.url, csv.length), { body: [csv] });
    expect(again.status).toBe(200);

    // A trickle: 10 bytes every 400 ms never pauses for the idle timeout, but is 25 bytes a second, under the least
    // rate of 100. Closed when its first window ends, and the run still takes a whole upload.
    const trickling = await newRun();
    const trickle = Array.from({ length: 40 }, (_, i) => csv.subarray(i * 10, (i + 1) * 10));
    const slowest = await raw(port, putHead(trickling.upload.url, csv.length), { body: trickle, gapMs: 400 });
    expect(slowest.status).toBeNull();
    expect(slowest.closedAfterMs).toBeGreaterThanOrEqual(UPLOAD_RATE_WINDOW_MS - 100);
    expect(slowest.closedAfterMs).toBeLessThan(UPLOAD_RATE_WINDOW_MS + LATE_MS);
    expect((await raw(port, putHead(trickling.upload.url, csv.length), { body: [csv] })).status).toBe(200);
  });
});

describe('HTTP edge: connection cap and keep-alive timeout', () => {
  // Below Node's default keep-alive timeout (5 s): a fall-back to it would fail.
  const LATE_MS = 3500;
  it('connections past HTTP_MAX_CONNECTIONS are closed at once; idle keep-alive ones after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const svc = await startService({ HTTP_MAX_CONNECTIONS: '5', HTTP_KEEP_ALIVE_TIMEOUT_MS: '500' });
    const port = Number(new URL(svc.baseUrl).port);
    const sockets: Socket[] = [];
    const get = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    try {
      for (let i = 0; i < 5; i++) {
        const s = connect({ host: '127.0.0.1', port });
        s.on('error', () => undefined);
        await new Promise((r) => s.once('connect', r));
        sockets.push(s);
      }
      // A sixth is closed unanswered once the server holds the five (a loaded machine may take a while to accept
      // them: until then a probe is answered, and it closes at once, taking no place).
      const probe = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
      const refused = await eventually(
        () => raw(port, probe),
        (answer) => answer.status === null,
      );
      expect(refused.closedAfterMs).toBeLessThan(LATE_MS);
      sockets.splice(0).forEach((s) => s.destroy());
      // A kept-alive connection, answered and then idle, is closed by the server (once it has seen the five go).
      const kept = await eventually(
        () => raw(port, get),
        (answer) => answer.status !== null,
      );
      expect(kept.status).toBe(200);
      expect(kept.closedAfterMs).toBeGreaterThanOrEqual(400);
      expect(kept.closedAfterMs).toBeLessThan(LATE_MS);
    } finally {
      sockets.forEach((s) => s.destroy());
      await svc.stop();
    }
  });
});

describe('HTTP edge: framework errors, request ids, security headers', () => {
  let svc: Service;
  let port: number;
  beforeAll(async () => {
    svc = await startService();
    port = Number(new URL(svc.baseUrl).port);
  });
  afterAll(() => svc.stop());

  it('a malformed percent-encoded path gets 400 in the envelope, with our request id', async () => {
    const res = await call(`${svc.baseUrl}/v1/transformations/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope('bad_request'));
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('an id of any length is for its route to answer: 401 without a key, 404 with one (the router answered 414 past 100 characters)', async () => {
    const org = await setupOrganization(svc);
    for (const id of ['a'.repeat(101), 'a'.repeat(8000)]) {
      for (const path of ['transformations', 'schemas', 'providers']) {
        expect((await call(`${svc.baseUrl}/v1/${path}/${id}`)).body).toEqual(envelope('unauthenticated'));
        const found = await call(`${svc.baseUrl}/v1/${path}/${id}`, { token: org.apiKey });
        expect({ path, status: found.status, code: found.body.error.code }).toEqual({ path, status: 404, code: 'not_found' });
      }
    }
  });

  it("what Node's parser refuses gets the envelope too: header overflow 431, a malformed request 400", async () => {
    const overflow = await raw(port, `GET /v1/schemas HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(overflow.status).toBe(431);
    expect(overflow.body).toEqual(envelope('request_header_fields_too_large'));
    expect(overflow.headers['x-request-id']).toBe(overflow.body.error.request_id);
    const malformed = await raw(port, 'GET /v1/schemas HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(envelope('bad_request'));
  });

  it('an HTTP/1.1 request without a Host header gets 400 in the envelope, with our request id (Node answered a bare 400); HTTP/1.0 needs none', async () => {
    for (const path of ['/healthz', '/v1/schemas']) {
      const noHost = await raw(port, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect({ path, status: noHost.status, body: noHost.body }).toEqual({ path, status: 400, body: envelope('bad_request') });
      expect(noHost.body.error.message).toBe('The request has no Host header, which HTTP/1.1 requires.');
      expect(noHost.headers['x-request-id']).toBe(noHost.body.error.request_id);
    }
    const old = await raw(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('two Authorization headers are 401 on the public and admin APIs, even when the first is valid (a proxy may have read the other)', async () => {
    const org = await setupOrganization(svc);
    const twice = (path: string, first: string) =>
      raw(
        port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${first}\r\nauthorization: Bearer tsk_other\r\n\r\n`,
      );
    for (const [answer, realm] of [
      [await twice('/v1/schemas', org.apiKey), 'api'],
      [await twice(`/admin/v1/organizations/${org.orgId}/api-keys`, ADMIN_TOKEN), 'admin'],
    ] as const) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({
        code: 'unauthenticated',
        message: 'Send one Authorization header; this request has more than one.',
      });
      expect(answer.headers['www-authenticate']).toBe(`Bearer realm="${realm}", error="invalid_request"`);
    }
    // One header still works.
    expect((await call(`${svc.baseUrl}/v1/schemas`, { token: org.apiKey })).status).toBe(200);
  });

  it('a body with a content type we do not read gets 415 in the envelope (with a key), 401 without one', async () => {
    const org = await setupOrganization(svc);
    const headers = { 'content-type': 'application/xml' };
    expect(await call(`${svc.baseUrl}/v1/transformations/raw`, { token: org.apiKey, raw: '<x/>', headers })).toMatchObject({
      status: 415,
      body: envelope('unsupported_media_type'),
    });
    expect((await call(`${svc.baseUrl}/v1/transformations/raw`, { raw: '<x/>', headers })).status).toBe(401);
  });

  it('a JSON body that declares a charset other than UTF-8 gets 415 naming it; utf-8 in any spelling passes', async () => {
    const org = await setupOrganization(svc);
    const body = JSON.stringify({ schema_id: org.schemaId, filename: 'a.csv' });
    const utf16 = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      raw: Buffer.from(body, 'utf16le'),
      headers: { 'content-type': 'application/json; charset=utf-16le' },
    });
    expect(utf16).toMatchObject({ status: 415, body: envelope('unsupported_media_type') });
    expect(utf16.body.error.message).toBe(
      'JSON bodies are read as UTF-8; this one says charset=utf-16le. Send it as UTF-8, with charset=utf-8 or none.',
    );
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf8"', 'Application/JSON']) {
      const res = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        raw: body,
        headers: { 'content-type': contentType },
      });
      expect({ contentType, status: res.status }).toEqual({ contentType, status: 201 });
    }
  });

  it('a JSON body that starts with a byte order mark is read without it (RFC 8259 lets a parser ignore it); one elsewhere is malformed', async () => {
    const org = await setupOrganization(svc);
    const body = JSON.stringify({ schema_id: org.schemaId, filename: 'bom.csv' });
    const headers = { 'content-type': 'application/json' };
    const created = await call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, raw: `\ufeff${body}`, headers });
    expect(created).toMatchObject({ status: 201, body: { schema_id: org.schemaId, status: 'awaiting_upload' } });
    const inside = await call(`${svc.baseUrl}/v1/transformations/file`, { token: org.apiKey, raw: ` \ufeff${body}`, headers });
    expect(inside).toMatchObject({ status: 400, body: envelope('bad_request') });
  });

  it('a body sent with a content coding gets 415 (it would be read as its compressed bytes), JSON and uploads alike; identity and a stray charset pass', async () => {
    const org = await setupOrganization(svc);
    const body = JSON.stringify({ schema_id: org.schemaId, filename: 'a.csv' });
    const zipped = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      raw: body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(zipped).toMatchObject({ status: 415, body: envelope('unsupported_media_type') });
    expect(zipped.body.error.message).toBe('Send the body as it is, without a Content-Encoding.');
    expect(zipped.headers.get('accept-encoding')).toBe('identity');
    const listed = await call(`${svc.baseUrl}/v1/transformations/file`, {
      token: org.apiKey,
      raw: body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity, BR' },
    });
    expect(listed.status).toBe(415);
    // What leaves the bytes as they are passes: identity, and a charset some clients wrongly send there.
    let plain = listed;
    for (const coding of ['identity', 'utf-8']) {
      plain = await call(`${svc.baseUrl}/v1/transformations/file`, {
        token: org.apiKey,
        raw: body,
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
      });
      expect({ coding, status: plain.status }).toEqual({ coding, status: 201 });
    }
    const upload = plain.body.upload;
    const put = await fetch(upload.url, { method: 'PUT', headers: { ...upload.headers, 'content-encoding': 'gzip' }, body: 'a\n1\n' });
    expect(put.status).toBe(415);
  });

  it('always generates our request id; a safe caller X-Request-Id is echoed as X-Client-Request-Id, an unsafe one is not', async () => {
    const mine = await call(`${svc.baseUrl}/v1/schemas`, { headers: { 'x-request-id': 'client-req.42' } });
    expect(mine.headers.get('x-request-id')).toMatch(UUID);
    expect(mine.body.error.request_id).toBe(mine.headers.get('x-request-id'));
    expect(mine.headers.get('x-client-request-id')).toBe('client-req.42');
    const unsafe = await call(`${svc.baseUrl}/v1/schemas`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(UUID);
    expect(unsafe.headers.get('x-client-request-id')).toBeNull();
  });

  it("no page or answer may be framed: CSP frame-ancestors 'none' and X-Frame-Options DENY; no HSTS over http", async () => {
    const api = await fetch(`${svc.baseUrl}/openapi.json`);
    expect(api.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(api.headers.get('x-frame-options')).toBe('DENY');
    expect(api.headers.get('strict-transport-security')).toBeNull();
    // The review page keeps its own policy, with frame-ancestors added.
    const page = await fetch(`${svc.baseUrl}/review/00000000-0000-4000-8000-000000000000?signature=nope`);
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; .*; frame-ancestors 'none'$/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('no answer is kept by a browser or a proxy (Cache-Control: no-store), errors included, unless it says otherwise', async () => {
    const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Uncached' } });
    expect(org.status).toBe(201);
    expect(org.headers.get('cache-control')).toBe('no-store');
    for (const res of [
      await call(`${svc.baseUrl}/v1/schemas`, { token: org.body.api_key }),
      await call(`${svc.baseUrl}/v1/schemas`),
      await call(`${svc.baseUrl}/console/api/session`),
      await call(`${svc.baseUrl}/healthz`),
    ])
      expect(res.headers.get('cache-control')).toBe('no-store');
    // The pages' assets keep theirs: cached for ever under their hash.
    const consolePage = await (await fetch(`${svc.baseUrl}/console`)).text();
    const asset = /(?:src|href)="(\/console\/assets\/[^"]+)"/.exec(consolePage)?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${svc.baseUrl}${asset}`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('HSTS when PUBLIC_BASE_URL is https', async () => {
    const https = await startService({ PUBLIC_BASE_URL: 'https://api.example.test' });
    try {
      const res = await fetch(`http://127.0.0.1:${https.config.port}/v1/schemas`);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      await https.stop();
    }
  });
});

describe('HTTP edge: failed authentication is throttled per client address', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  beforeAll(async () => {
    svc = await startService({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '60' });
    org = await setupOrganization(svc);
  });
  afterAll(() => svc.stop());
  const url = (p: string) => `${svc.baseUrl}${p}`;

  /** `attempt` fails 3 times (with `failure`), then the address gets 429 in the envelope with Retry-After. */
  async function expectThrottled(address: string, attempt: () => ReturnType<typeof from>, failure: number) {
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(failure);
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(envelope('too_many_failed_attempts'));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(50);
    expect(refused.headers['x-request-id']).toBe(refused.body.error.request_id);
  }

  it('a wrong admin token: after 3 failures the address gets 429, even with the right token; other addresses are not affected', async () => {
    await expectThrottled(
      '127.0.0.2',
      () => from('127.0.0.2', url('/admin/v1/organizations'), { token: 'w'.repeat(40), body: { name: 'x' } }),
      401,
    );
    expect((await from('127.0.0.2', url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'x' } })).status).toBe(429);
    expect((await from('127.0.0.3', url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'x' } })).status).toBe(201);
  });

  it('an invalid API key: after 3 failures 429; calls without any key are not counted', async () => {
    for (let i = 0; i < 5; i++) expect((await from('127.0.0.4', url('/v1/schemas'))).status).toBe(401);
    await expectThrottled('127.0.0.4', () => from('127.0.0.4', url('/v1/schemas'), { token: 'tsk_wrong' }), 401);
    expect((await from('127.0.0.5', url('/v1/schemas'), { token: org.apiKey })).status).toBe(200);
  });

  it('guesses sent at once to a directory that answers later get no more lookups than the failures allowed; a new key sent at once is never refused', async () => {
    // A remote directory (MongoDB) answers after the request's other work: slowed here, as it would be.
    const directory = svc.app.get<symbol, Directory>(DIRECTORY, { strict: false });
    const lookUp = directory.findApiKey.bind(directory);
    const lookups = jest.spyOn(directory, 'findApiKey').mockImplementation(async (hash) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return lookUp(hash);
    });
    try {
      const guesses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => from('127.0.0.11', url('/v1/schemas'), { token: `tsk_guess${i}` })),
      );
      expect(guesses.filter((r) => r.status === 401)).toHaveLength(3);
      expect(guesses.filter((r) => r.status === 429)).toHaveLength(9);
      expect(lookups).toHaveBeenCalledTimes(3);
      // A key just issued, never seen to match: ten requests at once wait for places, none is refused.
      const issued = await call(url(`/admin/v1/organizations/${org.orgId}/api-keys`), { token: ADMIN_TOKEN, body: {} });
      expect(issued.status).toBe(201);
      const burst = await Promise.all(
        Array.from({ length: 10 }, () => from('127.0.0.12', url('/v1/schemas'), { token: issued.body.api_key })),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    } finally {
      lookups.mockRestore();
    }
  });

  it('behind one shared address (NAT, a proxy not trusted), a key seen to match is still served past the limit, looked up each time (revoked: refused at once); nothing else is', async () => {
    const shared = '127.0.0.13';
    const mine = await call(url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'Behind the NAT' } });
    expect(mine.status).toBe(201);
    const key = mine.body.api_key as string;
    // Another organization's key, valid but never used: never seen to match.
    const theirs = await setupOrganization(svc);
    expect((await from(shared, url('/v1/schemas'), { token: key })).status).toBe(200);
    // Another client behind the same address sends a wrong key until the address is past the limit.
    await expectThrottled(shared, () => from(shared, url('/v1/schemas'), { token: 'tsk_misconfigured' }), 401);
    const locked = await from(shared, url('/v1/schemas'), { token: 'tsk_misconfigured' });
    expect(locked).toMatchObject({ status: 429, body: envelope('too_many_failed_attempts') });

    // The key that matched is still served, rate-limited as ever, and still scoped to its organization.
    for (let i = 0; i < 3; i++) {
      const served = await from(shared, url('/v1/schemas'), { token: key });
      expect(served.status).toBe(200);
      expect(served.headers['x-ratelimit-limit']).toBeDefined();
      expect(served.body.data.map((s: { id: string }) => s.id)).not.toContain(theirs.schemaId);
    }
    expect(await from(shared, url(`/v1/schemas/${theirs.schemaId}`), { token: key })).toMatchObject({
      status: 404,
      body: envelope('not_found'),
    });
    const run = await from(shared, url('/v1/transformations/file'), {
      token: key,
      body: { schema_id: theirs.schemaId, filename: 'a.csv' },
    });
    // Another organization's schema is no schema of this one.
    expect(run).toMatchObject({ status: 422, body: envelope('validation_failed') });

    // Nothing else from the address is looked at: a valid key never seen to match, the admin token, a wrong key,
    // a valid file-URL signature (its run made from elsewhere) and a review link.
    const refused = [
      await from(shared, url('/v1/schemas'), { token: theirs.apiKey }),
      await from(shared, url('/admin/v1/organizations'), { token: ADMIN_TOKEN, body: { name: 'x' } }),
      await from(shared, url(`/admin/v1/organizations/${mine.body.id}/api-keys`), { token: ADMIN_TOKEN }),
      await from(shared, url('/v1/schemas'), { token: 'tsk_misconfigured' }),
    ];
    const elsewhere = await call(url('/v1/transformations/file'), {
      token: theirs.apiKey,
      body: { schema_id: theirs.schemaId, filename: 'a.csv' },
    });
    expect(elsewhere.status).toBe(201);
    refused.push(await from(shared, elsewhere.body.upload.url, { method: 'PUT', body: 'a\n1\n' }));
    refused.push(await from(shared, url(`/review/${elsewhere.body.id}/state?signature=forged`)));
    for (const res of refused) expect(res).toMatchObject({ status: 429, body: envelope('too_many_failed_attempts') });
    // The served key neither reset nor lengthened the window.
    const last = refused.at(-1)!;
    expect(Number(last.headers['retry-after'])).toBeLessThanOrEqual(Number(locked.headers['retry-after']));

    // Revoked (through the admin API, from elsewhere): refused on the very next request, never served again.
    expect(
      (
        await call(url(`/admin/v1/organizations/${mine.body.id}/api-keys/${mine.body.api_key_id}`), {
          token: ADMIN_TOKEN,
          method: 'DELETE',
        })
      ).status,
    ).toBe(204);
    const revoked = await from(shared, url('/v1/schemas'), { token: key });
    expect(revoked).toMatchObject({ status: 401, body: envelope('unauthenticated') });
    for (let i = 0; i < 3; i++) expect([401, 429]).toContain((await from(shared, url('/v1/schemas'), { token: key })).status);
    // The other organization's key, never used from the shared address, is served from any other.
    expect((await from('127.0.0.14', url('/v1/schemas'), { token: theirs.apiKey })).status).toBe(200);
  });

  it('two Authorization headers are refused but not counted: a client repeating its good header is not locked out', async () => {
    const twice = { authorization: [`Bearer ${org.apiKey}`, `Bearer ${org.apiKey}`] } as unknown as Record<string, string>;
    for (let i = 0; i < 5; i++) expect((await from('127.0.0.6', url('/v1/schemas'), { headers: twice })).status).toBe(401);
    expect((await from('127.0.0.6', url('/v1/schemas'), { token: org.apiKey })).status).toBe(200);
  });

  it('a bad review-link signature: after 3 failures 429 (the JSON calls and the page)', async () => {
    const review = `/review/00000000-0000-4000-8000-000000000000`;
    await expectThrottled('127.0.0.6', () => from('127.0.0.6', url(`${review}/state?signature=forged`)), 403);
    expect((await from('127.0.0.6', url(`${review}?signature=forged`))).status).toBe(429);
    // The page's own failures count too.
    for (let i = 0; i < 3; i++) expect((await from('127.0.0.7', url(`${review}?signature=forged`))).status).toBe(403);
    expect((await from('127.0.0.7', url(`${review}/state?signature=forged`))).status).toBe(429);
  });

  it('X-Forwarded-For from a trusted peer names the client (TRUST_PROXY, default loopback)', async () => {
    const spoof = (client: string) => from('127.0.0.9', url('/v1/schemas'), { token: 'tsk_wrong', headers: { 'x-forwarded-for': client } });
    for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.1']) expect((await spoof(client)).status).toBe(401);
    expect((await spoof('203.0.113.1')).status).toBe(429);
    expect((await spoof('203.0.113.2')).status).toBe(401);
  });

  it('with TRUST_PROXY=false, X-Forwarded-For cannot spread the failures over made-up addresses', async () => {
    const untrusting = await startService({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'false' });
    try {
      const attempt = (i: number) =>
        from('127.0.0.10', `${untrusting.baseUrl}/v1/schemas`, { token: 'tsk_wrong', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      for (let i = 0; i < 3; i++) expect((await attempt(i)).status).toBe(401);
      expect((await attempt(3)).status).toBe(429);
    } finally {
      await untrusting.stop();
    }
  });

  it('a bad file-URL signature: after 3 failures 429', async () => {
    const run = await call(url('/v1/transformations/file'), { token: org.apiKey, body: { schema_id: org.schemaId, filename: 'a.csv' } });
    const forged = new URL(run.body.upload.url);
    forged.searchParams.set('signature', 'forged');
    await expectThrottled('127.0.0.8', () => from('127.0.0.8', forged.toString(), { method: 'PUT', body: 'x' }), 403);
  });
});

describe('HTTP edge: the admin API on a listener of its own', () => {
  it('with ADMIN_PORT, /admin is served only there (and /v1 only on the public port)', async () => {
    const adminPort = await freePort();
    const svc = await startService({ ADMIN_HOST: '127.0.0.1', ADMIN_PORT: String(adminPort) });
    try {
      const admin = `http://127.0.0.1:${adminPort}`;
      expect(await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'x' } })).toMatchObject({
        status: 404,
        body: envelope('not_found'),
      });
      expect((await call(`${svc.baseUrl}/admin/openapi.json`)).status).toBe(404);
      const org = await call(`${admin}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'Acme' } });
      expect(org.status).toBe(201);
      expect((await call(`${admin}/admin/openapi.json`)).status).toBe(200);
      expect((await call(`${admin}/v1/schemas`, { token: org.body.api_key })).status).toBe(404);
      expect((await call(`${admin}/openapi.json`)).status).toBe(404);
      expect((await call(`${svc.baseUrl}/v1/schemas`, { token: org.body.api_key })).status).toBe(200);
      expect((await call(`${admin}/admin/v1/organizations`, { body: { name: 'x' } })).status).toBe(401);
      // The operator endpoints: /readyz and /metrics on the admin listener only, /healthz on both.
      for (const path of ['/readyz', '/metrics']) {
        expect(await call(`${svc.baseUrl}${path}`)).toMatchObject({ status: 404, body: envelope('not_found') });
        expect((await fetch(`${admin}${path}`)).status).toBe(200);
      }
      expect(await (await fetch(`${admin}/metrics`)).text()).toContain('transform_consumer_lag_events');
      for (const base of [svc.baseUrl, admin]) expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await svc.stop();
    }
    // Closed with the service.
    await expect(fetch(`http://127.0.0.1:${adminPort}/admin/openapi.json`)).rejects.toThrow();
  });

  it('by default, /admin is served on the public listener', async () => {
    const svc = await startService();
    try {
      expect((await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name: 'x' } })).status).toBe(201);
      expect((await call(`${svc.baseUrl}/admin/openapi.json`)).status).toBe(200);
      for (const path of ['/healthz', '/readyz', '/metrics']) expect((await fetch(`${svc.baseUrl}${path}`)).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});

describe('HTTP edge: ADMIN_TOKEN strength', () => {
  it('refuses to start with an ADMIN_TOKEN shorter than 32 characters', async () => {
    await expect(startService({ ADMIN_TOKEN: 'x'.repeat(31) })).rejects.toThrow(/ADMIN_TOKEN must be at least 32 characters/);
    const ok = await startService({ ADMIN_TOKEN: 'x'.repeat(32) });
    await ok.stop();
  });
});
