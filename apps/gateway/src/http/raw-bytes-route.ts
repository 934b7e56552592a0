import { ApiError } from './api-error';

/**
 * The one route of the JSON API's listener that takes raw bytes (application/octet-stream): the console's "try it"
 * on a schema. Every other route takes JSON bodies only (415 "Request bodies must be application/json.").
 */
export const RAW_BYTES_ROUTE = '/console/api/schemas/:id/try';

/** The 415 of that route for a body of another type (refused by Fastify, or JSON read): it says what the route takes. */
export const rawBytesExpected = (): ApiError =>
  new ApiError(
    415,
    'unsupported_media_type',
    'invalid_request',
    'Send the file itself as the body, with Content-Type: application/octet-stream.',
  );
