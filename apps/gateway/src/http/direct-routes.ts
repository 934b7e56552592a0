import type { FastifyInstance, FastifyReply, HTTPMethods } from 'fastify';
import type { ApiKeyGuard, AuthenticatedRequest } from './auth.guard';
import { sendApiError, toApiError } from './error-envelope.filter';

/**
 * A route a Nest controller declares (its place among the controllers, its OpenAPI operation)
 * whose requests are answered without Nest's per-request pipeline.
 */
export interface DirectRoute {
  method: HTTPMethods;
  /** The route's pattern as Fastify knows it, e.g. `/v1/transformations/:transformationRun`. */
  url: string;
  /** The controller method's work: what it returns is the answer's body (status 200). */
  answer(request: AuthenticatedRequest, reply: FastifyReply): Promise<unknown>;
}

/**
 * Routes polled thousands of times a second pay for every layer a request goes through, and
 * Nest's pipeline (its router's guard consumer, pipes, interceptors, response controller and
 * the promises between them) cost about a sixth of a run's GET (docs/decisions.md, "The
 * cost of one request"). For the routes given here, the handler Nest registers with Fastify
 * is replaced, as the route is added, by one that does by hand what those layers did for it:
 * the API-key guard's admission (caller, rate limit, last use) and the exception filter's
 * envelope. Everything Fastify runs around a handler (the HTTP edge, the access log,
 * metrics) is unchanged.
 *
 * A route that is never declared stops the application from starting: a renamed controller
 * route must not silently lose its direct handler.
 */
export function answerDirectly(fastify: FastifyInstance, guard: ApiKeyGuard, routes: DirectRoute[]): void {
  const pending = new Map(routes.map((route) => [`${route.method} ${route.url}`, route]));
  fastify.addHook('onRoute', (options) => {
    if (Array.isArray(options.method)) return;
    const route = pending.get(`${options.method} ${options.url}`);
    if (!route) return;
    pending.delete(`${options.method} ${options.url}`);
    options.handler = async function direct(request: AuthenticatedRequest, reply: FastifyReply) {
      try {
        await guard.admit(request, reply);
        return await route.answer(request, reply);
      } catch (err) {
        return sendApiError(reply, toApiError(err, request));
      }
    };
  });
  fastify.addHook('onReady', async () => {
    if (pending.size > 0) throw new Error(`Routes to answer directly that no controller declares: ${[...pending.keys()].join(', ')}`);
  });
}
