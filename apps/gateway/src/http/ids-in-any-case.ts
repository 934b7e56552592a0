import type { FastifyInstance, preHandlerHookHandler } from 'fastify';

/** A UUID in any letter case (the spec's ids). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every path parameter that is a UUID, in lower case: the case every id is generated and stored in. */
const lowerCaseIds: preHandlerHookHandler = (request, _reply, done) => {
  const params = request.params as Record<string, unknown>;
  for (const name in params) {
    const value = params[name];
    if (typeof value === 'string' && UUID_RE.test(value)) params[name] = value.toLowerCase();
  }
  done();
};

/**
 * A UUID's letter case carries no meaning, so the routes under `prefixes` (the admin API and
 * the console's) take an id in their path in any case, as the public API does
 * (docs/decisions.md, "Ids in upper case"). Added to each such route with path parameters as
 * it is registered, so no other route pays for it. The review pages' and files' signed links
 * are outside these routes and keep their exact ids; an invitation's id (a console route) is
 * lowered before its signature is checked, which was made over the lower-case id.
 */
export function takeIdsInAnyCase(fastify: FastifyInstance, prefixes: readonly string[]): void {
  fastify.addHook('onRoute', (options) => {
    if (!options.url.includes(':') || !prefixes.some((prefix) => options.url.startsWith(prefix))) return;
    const before = options.preHandler;
    options.preHandler = before === undefined ? lowerCaseIds : [...(Array.isArray(before) ? before : [before]), lowerCaseIds];
  });
}
