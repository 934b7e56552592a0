import { Logger } from '@nestjs/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from './api-error';
import type { ApiKeyGuard } from './auth.guard';
import { answerDirectly, type DirectRoute } from './direct-routes';

describe('answerDirectly', () => {
  let app: FastifyInstance;
  afterEach(() => app?.close());

  /** A Fastify instance where `declared` routes are added as Nest adds them (after answerDirectly), answering "nest". */
  async function start(
    routes: DirectRoute[],
    declared: string[],
    admit: ApiKeyGuard['admit'] = async () => ({ organizationId: 'o', apiKeyId: 'k' }),
  ) {
    app = Fastify();
    answerDirectly(app, { admit } as ApiKeyGuard, routes);
    for (const url of declared) app.get(url, async () => 'nest');
    await app.ready();
  }
  const route = (answer: DirectRoute['answer']): DirectRoute => ({ method: 'GET', url: '/runs/:id', answer });

  it("replaces the declared route's handler, after the guard's admission, and leaves every other route to Nest", async () => {
    const admitted: string[] = [];
    await start(
      [route(async (request) => ({ id: (request.params as { id: string }).id }))],
      ['/runs/:id', '/runs'],
      async (request, reply) => {
        admitted.push(request.url);
        void reply.header('x-ratelimit-remaining', '9');
        return { organizationId: 'o', apiKeyId: 'k' };
      },
    );
    const direct = await app.inject({ method: 'GET', url: '/runs/42' });
    expect(direct.statusCode).toBe(200);
    expect(direct.json()).toEqual({ id: '42' });
    expect(direct.headers['x-ratelimit-remaining']).toBe('9');
    expect((await app.inject({ method: 'GET', url: '/runs' })).body).toBe('nest');
    expect(admitted).toEqual(['/runs/42']);
  });

  it('answers what the guard or the route throws in the envelope, and a surprise as a 500 that tells nothing', async () => {
    let thrown: unknown = ApiError.notFound('transformation run');
    await start(
      [
        route(async () => {
          throw thrown;
        }),
      ],
      ['/runs/:id'],
    );
    const notFound = await app.inject({ method: 'GET', url: '/runs/1' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json().error).toMatchObject({ code: 'not_found', request_id: notFound.json().error.request_id });
    expect(notFound.json().error.request_id).toEqual(expect.any(String));
    thrown = new Error('database file /secret/path is locked');
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const surprise = await app.inject({ method: 'GET', url: '/runs/1' });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('database file /secret/path is locked'));
    logged.mockRestore();
    expect(surprise.statusCode).toBe(500);
    expect(surprise.body).not.toContain('/secret/path');
    expect(surprise.json().error.code).toBe('internal_error');
  });

  it('refuses to start when a route to answer directly is never declared (a renamed controller route)', async () => {
    await expect(start([route(async () => 'direct')], ['/runs/:runId'])).rejects.toThrow(
      'Routes to answer directly that no controller declares: GET /runs/:id',
    );
  });
});
