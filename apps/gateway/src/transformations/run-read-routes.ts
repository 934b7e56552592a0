import type { DirectRoute } from '../http/direct-routes';
import type { TransformationsController } from './transformations.controller';

/**
 * The reads of runs (a run a client polls until it is done, the list): answered without
 * Nest's pipeline (http/direct-routes.ts), by the controller's own methods.
 */
export const runReadRoutes = (controller: TransformationsController): DirectRoute[] => [
  {
    method: 'GET',
    url: '/v1/transformations/:transformationRun',
    answer: (request) => controller.show(request, (request.params as { transformationRun: string }).transformationRun),
  },
  {
    method: 'GET',
    url: '/v1/transformations',
    answer: (request) => controller.index(request, request.query as Record<string, unknown>),
  },
];
