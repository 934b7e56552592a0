import type { DirectRoute } from '../http/direct-routes';
import type { TransformationsController } from './transformations.controller';

/**
 * The route a client polls until its run is done: answered without Nest's pipeline
 * (http/direct-routes.ts), by the controller's own method.
 */
export const polledRunRoutes = (controller: TransformationsController): DirectRoute[] => [
  {
    method: 'GET',
    url: '/v1/transformations/:transformationRun',
    answer: (request) => controller.show(request, (request.params as { transformationRun: string }).transformationRun),
  },
];
