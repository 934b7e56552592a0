import type { FastifyInstance } from 'fastify';

/** Probes and scrapes: their successes are not logged (every few seconds, they would drown the requests that matter). */
export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

const ALIVE = JSON.stringify({ status: 'ok' });

/**
 * `GET /healthz`: the process and its event loop answer; nothing else is asked (a slow store
 * must not get the process restarted). A plain Fastify route, not a Nest controller's: it
 * needs no guard, pipe, interceptor or exception filter, and Nest's router would cost more
 * than the answer (docs/decisions.md, "The cost of one request"). It still passes the HTTP
 * edge's hooks (request id, security headers, the admin-listener rule) and is counted in
 * `http_request_duration_seconds`.
 */
export function registerLiveness(fastify: FastifyInstance): void {
  fastify.get('/healthz', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(ALIVE);
  });
}
