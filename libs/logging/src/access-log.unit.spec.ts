import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { storage } from 'nestjs-pino/storage';
import pino from 'pino';
import type { LogSettings } from '@app/config';
import { accessLogLevel, installAccessLog } from './access-log';
import { addLogContext } from './log-context';
import { loggerOptions } from './logger-params';

type Line = Record<string, any>;

/** A destination that keeps each written line, parsed. */
function sink() {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { lines, stream };
}

// No request here is slow unless a test says so: a shared CI machine can stall a fast request
// for hundreds of milliseconds, and a stalled success is (rightly) written as slow.
const SETTINGS: LogSettings = { level: 'info', format: 'json', successSampleRate: 0, repeatWindowMs: 0, slowRequestMs: 60_000 };

describe('accessLogLevel', () => {
  const never = () => 0.99;
  const always = () => 0;
  const req = (method: string, statusCode: number, elapsedMs = 1, quiet = false) => ({ method, statusCode, elapsedMs, quiet });
  it.each([
    ['a 5xx, at error level, even on a probe', req('GET', 503, 1, true), 'error'],
    ['a 4xx', req('GET', 404), 'info'],
    ['a 401 on a probe', req('GET', 401, 1, true), 'info'],
    ['a slow success, at warn level', req('GET', 200, 200), 'warn'],
    ['a slow probe', req('GET', 200, 900, true), 'warn'],
    ['a write', req('POST', 201), 'info'],
    ['a DELETE', req('DELETE', 204), 'info'],
  ] as const)('always logs %s', (_name, request, level) => {
    expect(accessLogLevel(request, { successSampleRate: 0, slowRequestMs: 200 }, never)).toBe(level);
  });

  it('samples fast successful GETs and HEADs at the configured rate', () => {
    const settings = { successSampleRate: 0.25, slowRequestMs: 200 };
    expect(accessLogLevel(req('GET', 200), settings, () => 0.24)).toBe('info');
    expect(accessLogLevel(req('GET', 200), settings, () => 0.25)).toBeNull();
    expect(accessLogLevel(req('HEAD', 304), settings, () => 0.1)).toBe('info');
    expect(accessLogLevel(req('GET', 200), { successSampleRate: 1, slowRequestMs: 200 }, () => 0.999)).toBe('info');
    expect(accessLogLevel(req('GET', 200), { successSampleRate: 0, slowRequestMs: 200 }, always)).toBeNull();
  });

  it('never logs the successes of a quiet route', () => {
    expect(accessLogLevel(req('GET', 200, 1, true), { successSampleRate: 1, slowRequestMs: 200 }, always)).toBeNull();
  });
});

describe('installAccessLog on a Fastify instance', () => {
  let app: FastifyInstance;
  let access: ReturnType<typeof sink>;
  let appLines: ReturnType<typeof sink>;
  const originalRoot = PinoLogger.root;

  async function start(settings: LogSettings, random?: () => number, now?: () => number) {
    access = sink();
    appLines = sink();
    // What nestjs-pino's module sets up: the service's logger, whose children the request's lines go through.
    (PinoLogger as unknown as { root: pino.Logger }).root = pino(loggerOptions(settings), appLines.stream);
    app = Fastify();
    installAccessLog(app, settings, { quietRoutes: new Set(['/healthz']), destination: access.stream, random, now });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/fail', async (_req, reply) => reply.code(500).send({ error: 'x' }));
    app.get('/slow', async () => {
      await new Promise((r) => setTimeout(r, settings.slowRequestMs + 20));
      return { ok: true };
    });
    app.post('/write', async () => ({ ok: true }));
    app.get('/healthz', async (request, reply) =>
      (request.query as { down?: string }).down ? reply.code(503).send({}) : { status: 'ok' },
    );
    app.get('/with-context', async () => {
      addLogContext({ organization_id: 'org-1' });
      storage.getStore()!.logger.info({ api_key: 'tsk_secret' }, 'inside the handler');
      return { ok: true };
    });
    app.get('/org/:id', async (request) => {
      addLogContext({ organization_id: (request.params as { id: string }).id });
      return { ok: true };
    });
    await app.ready();
  }
  afterEach(async () => {
    await app?.close();
    (PinoLogger as unknown as { root: pino.Logger | undefined }).root = originalRoot;
  });
  const get = (url: string) => app.inject({ method: 'GET', url });

  it('keeps every error and write while no fast successful GET is sampled (rate 0)', async () => {
    await start(SETTINGS);
    for (let i = 0; i < 30; i++) expect((await get('/ok')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) await get('/healthz');
    await get('/fail');
    await get('/missing');
    await app.inject({ method: 'POST', url: '/write' });
    await get('/healthz?down=1');
    expect(access.lines.map((l) => [l.req.method, l.req.url, l.res.statusCode, l.level, l.msg])).toEqual([
      ['GET', '/fail', 500, 50, 'request errored'],
      ['GET', '/missing', 404, 30, 'request completed'],
      ['POST', '/write', 200, 30, 'request completed'],
      ['GET', '/healthz?down=1', 503, 50, 'request errored'],
    ]);
  });

  it('writes a slow successful GET at warn level although no success is sampled', async () => {
    const slowRequestMs = 50;
    await start({ ...SETTINGS, slowRequestMs });
    await get('/slow'); // answers after slowRequestMs + 20 ms
    expect(access.lines.map((l) => [l.req.url, l.res.statusCode, l.level, l.msg])).toEqual([['/slow', 200, 40, 'request completed']]);
    expect(access.lines[0].responseTime).toBeGreaterThanOrEqual(slowRequestMs);
  });

  it('writes the sampled share of successful GETs', async () => {
    let n = 0;
    await start({ ...SETTINGS, successSampleRate: 0.1 }, () => (n++ % 10) / 10); // 0, 0.1, ..., 0.9: one in ten below 0.1
    for (let i = 0; i < 50; i++) await get('/ok');
    expect(access.lines).toHaveLength(5);
  });

  it('writes one line a window of the fast successful reads alike, with how many it stands for, and every other line', async () => {
    let clock = 0;
    await start({ ...SETTINGS, successSampleRate: 1, repeatWindowMs: 1000 }, undefined, () => clock);
    for (let i = 0; i < 5; i++) await get('/ok'); // at 0 ms: one line, four counted
    await get('/with-context'); // another route: its own line
    await get('/missing'); // an error: always written
    await app.inject({ method: 'POST', url: '/write' }); // a write: always written
    clock = 400;
    await get('/ok'); // counted
    clock = 1000;
    await get('/ok'); // a window later: written, standing for the five counted
    await get('/ok');
    expect(access.lines.map((l) => [l.req.url, l.res.statusCode, l.repeats])).toEqual([
      ['/ok', 200, undefined],
      ['/with-context', 200, undefined],
      ['/missing', 404, undefined],
      ['/write', 200, undefined],
      ['/ok', 200, 5],
    ]);
  });

  it('tells the callers of one route apart by organization', async () => {
    await start({ ...SETTINGS, successSampleRate: 1, repeatWindowMs: 1000 }, undefined, () => 0);
    for (const org of ['a', 'b', 'a', 'b', 'c']) await get(`/org/${org}`);
    expect(access.lines.map((l) => l.organization_id)).toEqual(['a', 'b', 'c']);
  });

  it('writes every successful GET at rate 1, with the request id and the URL without its signature', async () => {
    await start({ ...SETTINGS, successSampleRate: 1 });
    await app.inject({ method: 'GET', url: '/ok?signature=s3cr3t&page=2' });
    expect(access.lines).toEqual([
      expect.objectContaining({
        req: { id: expect.any(String), method: 'GET', url: '/ok?signature=[redacted]&page=2' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: 'request completed',
      }),
    ]);
    expect(JSON.stringify(access.lines)).not.toContain('s3cr3t');
  });

  it("binds the request's id and added fields to the lines written while it is handled, and to its access line", async () => {
    await start({ ...SETTINGS, successSampleRate: 1 });
    await get('/with-context');
    const inside = appLines.lines.find((l) => l.msg === 'inside the handler');
    expect(inside).toMatchObject({ req: { method: 'GET', url: '/with-context' }, organization_id: 'org-1', api_key: '[redacted]' });
    expect(access.lines).toEqual([
      expect.objectContaining({ req: { id: inside!.req.id, method: 'GET', url: '/with-context' }, organization_id: 'org-1' }),
    ]);
  });

  it("redacts the signatures of the request's URL on the lines written while it is handled, not only on its access line", async () => {
    await start({ ...SETTINGS, successSampleRate: 1 });
    await app.inject({ method: 'GET', url: '/with-context?method=PUT&signature=s3cr3t' });
    const inside = appLines.lines.find((l) => l.msg === 'inside the handler');
    expect(inside).toMatchObject({ req: { url: '/with-context?method=PUT&signature=[redacted]' } });
    expect(JSON.stringify(appLines.lines)).not.toContain('s3cr3t');
  });

  it('writes nothing below its level', async () => {
    await start({ ...SETTINGS, level: 'error', successSampleRate: 1 });
    await get('/ok');
    await get('/missing');
    await get('/fail');
    expect(access.lines.map((l) => l.req.url)).toEqual(['/fail']);
  });
});
