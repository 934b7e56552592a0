import type { DirectRoute } from '../http/direct-routes';
import type { CatalogController } from './catalog.controller';

type Params = Record<string, string>;

/** The catalog's reads, answered without Nest's pipeline (http/direct-routes.ts), by the controller's own methods. */
export const catalogReadRoutes = (controller: CatalogController): DirectRoute[] => [
  { method: 'GET', url: '/v1/schemas', answer: (request) => controller.schemas(request, request.query as Record<string, unknown>) },
  { method: 'GET', url: '/v1/schemas/:schema', answer: (request) => controller.schema(request, (request.params as Params).schema) },
  { method: 'GET', url: '/v1/providers', answer: (request) => controller.providers(request, request.query as Record<string, unknown>) },
  { method: 'GET', url: '/v1/providers/:provider', answer: (request) => controller.provider(request, (request.params as Params).provider) },
];
