/**
 * Whether a matched route's path has an empty parameter (`/v1/schemas/`): Nest's Fastify adapter takes such a
 * request for no route of its own (404), and so do the HTTP edge (before authentication and the rate limit) and the
 * routes answered without Nest (direct-routes.ts). The wildcard of a prefix route (`*`) is not a named parameter.
 */
export function hasEmptyParam(params: unknown): boolean {
  if (params === null || typeof params !== 'object') return false;
  const named = params as Record<string, unknown>;
  for (const name in named) if (name !== '*' && named[name] === '') return true;
  return false;
}
