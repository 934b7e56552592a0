import { RequestMethod, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
  REDIRECT_METADATA,
  RENDER_METADATA,
  ROUTE_ARGS_METADATA,
  SSE_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ApplicationConfig } from '@nestjs/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiKeyGuard, AuthenticatedRequest } from './auth.guard';
import { sendApiError, toApiError } from './error-envelope.filter';
import { hasEmptyParam } from './empty-param';

/** Controller methods (GET routes) to answer without Nest's per-request pipeline. */
export interface DirectlyAnswered {
  controller: object;
  methods: string[];
}

/** A list entry whose method names are checked against the controller's. */
export const directly = <T extends object>(controller: T, methods: (keyof T & string)[]): DirectlyAnswered => ({
  controller,
  methods,
});

/** What a route's handler does instead of Nest's pipeline. */
interface DirectRoute {
  url: string;
  name: string;
  /** Whether the route has path parameters (known once, not looked for on every request). */
  hasParams: boolean;
  call(request: AuthenticatedRequest): Promise<unknown>;
}

/**
 * Routes polled thousands of times a second pay for every layer a request goes through, and
 * Nest's pipeline (its router's guard consumer, pipes, interceptors, response controller and
 * the promises between them) cost about a sixth of a run's GET (docs/decisions.md, "The
 * cost of one request"). For the controller methods given here, the handler Nest registers
 * with Fastify is replaced, as the route is added, by one that does by hand what those
 * layers do for such a method: the API-key guard's admission (caller, rate limit, last use),
 * the method's call with its request, query and path parameters, and the exception filter's
 * envelope. Everything Fastify runs around a handler (the HTTP edge, the access log,
 * metrics) is unchanged; HEAD, which Fastify derives from each GET before this hook runs,
 * keeps Nest's handler.
 *
 * What the replacement would silently skip stops the application from starting instead: a
 * method that is not a GET, a guard other than the API-key guard, a pipe, interceptor,
 * exception filter, status code, header, redirect or template on the method or its
 * controller, a parameter decorator other than @Req/@Query/@Param, a global guard, pipe or
 * interceptor, or a method whose route Nest never registered.
 */
export function answerDirectly(
  fastify: FastifyInstance,
  guard: ApiKeyGuard,
  enhancers: ApplicationConfig,
  answered: DirectlyAnswered[],
): void {
  const pending = new Map<string, DirectRoute>();
  for (const { controller, methods } of answered) {
    for (const method of methods) {
      const route = directRoute(controller, method, guard);
      pending.set(route.url, route);
    }
  }
  fastify.addHook('onRoute', (options) => {
    const route = options.method === 'GET' ? pending.get(options.url) : undefined;
    if (!route) return;
    pending.delete(options.url);
    options.handler = async function direct(request: AuthenticatedRequest, reply: FastifyReply) {
      // As Nest's Fastify adapter does: a route whose parameter is empty is not this route.
      if (route.hasParams && hasEmptyParam(request.params)) return reply.callNotFound();
      try {
        await guard.admit(request, reply);
        return await route.call(request);
      } catch (err) {
        return sendApiError(reply, toApiError(err, request));
      }
    };
  });
  fastify.addHook('onReady', async () => {
    if (pending.size > 0) {
      throw new Error(
        `Controller methods to answer directly whose routes Nest did not register: ${[...pending.values()].map((r) => `${r.name} (GET ${r.url})`).join(', ')}`,
      );
    }
    const globals = [
      ...enhancers.getGlobalGuards(),
      ...enhancers.getGlobalRequestGuards(),
      ...enhancers.getGlobalPipes(),
      ...enhancers.getGlobalRequestPipes(),
      ...enhancers.getGlobalInterceptors(),
      ...enhancers.getGlobalRequestInterceptors(),
    ];
    if (globals.length > 0)
      throw new Error('Routes answered directly would skip the global guards, pipes or interceptors: see http/direct-routes.ts');
  });
}

const ENHANCERS = [PIPES_METADATA, INTERCEPTORS_METADATA, EXCEPTION_FILTERS_METADATA];
const RESPONSE_SHAPERS = [HTTP_CODE_METADATA, HEADERS_METADATA, REDIRECT_METADATA, RENDER_METADATA, SSE_METADATA];

interface RouteArgument {
  index: number;
  data?: unknown;
  pipes: unknown[];
}

/** The route of `controller[method]` and how to call it, after checking that nothing Nest would do for it is skipped. */
function directRoute(controller: object, method: string, guard: ApiKeyGuard): DirectRoute {
  const type = controller.constructor as Type;
  const fn = (controller as Record<string, unknown>)[method];
  const name = `${type.name}.${method}`;
  const refuse = (why: string) => new Error(`${name} cannot be answered directly: ${why}`);
  if (typeof fn !== 'function') throw refuse('no such method');
  if (Reflect.getMetadata(METHOD_METADATA, fn) !== RequestMethod.GET) throw refuse('not a GET route');
  const guards = [
    ...((Reflect.getMetadata(GUARDS_METADATA, type) as unknown[]) ?? []),
    ...((Reflect.getMetadata(GUARDS_METADATA, fn) as unknown[]) ?? []),
  ];
  if (guards.length !== 1 || guards[0] !== guard.constructor) throw refuse('its guards are not exactly the API-key guard');
  for (const key of ENHANCERS) {
    if (((Reflect.getMetadata(key, type) as unknown[]) ?? []).length + ((Reflect.getMetadata(key, fn) as unknown[]) ?? []).length > 0) {
      throw refuse(`it has ${key}`);
    }
  }
  for (const key of RESPONSE_SHAPERS) if (Reflect.getMetadata(key, fn) !== undefined) throw refuse(`it has ${key}`);

  const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, method) ?? {}) as Record<string, RouteArgument>;
  const readers: ((request: AuthenticatedRequest) => unknown)[] = [];
  for (const [key, argument] of Object.entries(declared)) {
    if (argument.pipes.length > 0) throw refuse(`argument ${argument.index} has a pipe`);
    const field = typeof argument.data === 'string' ? argument.data : undefined;
    switch (Number(key.split(':')[0]) as RouteParamtypes) {
      case RouteParamtypes.REQUEST:
        readers[argument.index] = (request) => request;
        break;
      case RouteParamtypes.QUERY:
        readers[argument.index] = (request) => (field ? (request.query as Record<string, unknown>)[field] : request.query);
        break;
      case RouteParamtypes.PARAM:
        readers[argument.index] = (request) => (field ? (request.params as Record<string, unknown>)[field] : request.params);
        break;
      default:
        throw refuse(`argument ${argument.index} is neither @Req, @Query nor @Param`);
    }
  }
  for (let i = 0; i < Math.max(fn.length, readers.length); i++)
    if (readers[i] === undefined) throw refuse(`argument ${i} has no decorator`);

  const path = [Reflect.getMetadata(PATH_METADATA, type), Reflect.getMetadata(PATH_METADATA, fn)]
    .map((part) => String(part ?? '').replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  const call = fn as (...args: unknown[]) => Promise<unknown>;
  return {
    url: `/${path}`,
    name,
    hasParams: path.includes(':'),
    call: (request) =>
      call.apply(
        controller,
        readers.map((read) => read(request)),
      ),
  };
}
