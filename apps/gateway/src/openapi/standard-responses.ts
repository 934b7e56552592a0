import { ERROR_RESPONSE_NAMES, type ErrorStatus, type Json, errorComponents, responseHeaders } from './error-responses';
import { toOpenApi31 } from './openapi-31';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Fastify reads a body on these methods whatever the route does with it, once the HTTP
 * edge checked the credential but before the route's guard counts the rate limit:
 * malformed JSON (400), an oversize body (413) or a content type without a parser (415)
 * can come back from any of them.
 */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

export interface FinishOptions {
  components: ReturnType<typeof errorComponents>;
  /** Operations with a security requirement go through the API-key guard, which rate-limits (429, X-RateLimit-*). */
  rateLimited: boolean;
}

/**
 * Turns what @nestjs/swagger scanned into the served document: adds the shared error
 * components, gives every operation every response it can give (route-specific errors
 * from `@ApiErrorResponses`, plus 401 and 429 when it needs a credential, 500 and 503
 * always, 400/413/415 on methods with a body), documents the headers of its success
 * responses, and rewrites the schemas as OpenAPI 3.1. Works on a copy: the scanned
 * document shares objects with the decorators' metadata.
 */
export function finishDocument<T extends object>(scanned: T, { components, rateLimited }: FinishOptions): T {
  // A JSON copy, not structuredClone: under Jest that makes objects of another realm, which the YAML writer skips as invalid.
  const doc = JSON.parse(JSON.stringify(scanned)) as Json;
  const existing = (doc.components ?? {}) as Record<string, Json | undefined>;
  doc.components = {
    ...existing,
    schemas: { ...existing.schemas, ...components.schemas },
    headers: { ...existing.headers, ...components.headers },
    responses: { ...existing.responses, ...components.responses },
  };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) op.responses = completeResponses(method, op, rateLimited, components.responses);
    }
  }
  return toOpenApi31(doc) as T;
}

function completeResponses(method: string, op: Json, rateLimited: boolean, available: Record<string, Json>): Json {
  const given = (op.responses ?? {}) as Record<string, Json>;
  const secured = Array.isArray(op.security) && op.security.length > 0;
  const errors = new Set(
    Object.keys(given)
      .map(Number)
      .filter((s) => s >= 400),
  );
  if (secured) errors.add(401);
  // The API key's rate limit (public) and the failed-authentication throttle (both documents).
  if (secured) errors.add(429);
  errors.add(500);
  errors.add(503);
  if (BODY_METHODS.has(method)) [400, 413, 415].forEach((s) => errors.add(s));

  const out: Json = {};
  for (const [code, response] of Object.entries(given)) {
    if (Number(code) >= 400) continue;
    out[code] = {
      ...response,
      description: response.description || 'Success.',
      headers: { ...responseHeaders(secured && rateLimited ? 'required' : 'none'), ...(response.headers as Json | undefined) },
    };
  }
  for (const status of [...errors].sort((a, b) => a - b)) {
    const name = ERROR_RESPONSE_NAMES[status as ErrorStatus];
    if (!name || !available[name]) throw new Error(`OpenAPI: no shared response for ${status} (operation ${String(op.operationId)})`);
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}
