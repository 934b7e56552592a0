/**
 * An error the API answers with, in the spec's envelope:
 * `{ error: { code, message, type, request_id, fields? } }`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly type: string,
    message: string,
    readonly fields?: Record<string, string[]>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static validation(fields: Record<string, string[]>): ApiError {
    return new ApiError(422, 'validation_failed', 'validation', 'The given data was invalid.', fields);
  }
  static notFound(what = 'resource'): ApiError {
    return new ApiError(404, 'not_found', 'not_found', `The requested ${what} was not found.`);
  }
  static unauthenticated(message = 'A valid API key is required (Authorization: Bearer <API_KEY>).'): ApiError {
    return new ApiError(401, 'unauthenticated', 'authentication', message);
  }
  static forbidden(code: string, message: string): ApiError {
    return new ApiError(403, code, 'authorization', message);
  }
  static conflict(code: string, message: string): ApiError {
    return new ApiError(409, code, 'conflict', message);
  }
  static tooManyRequests(headers: Record<string, string> = {}): ApiError {
    return new ApiError(
      429,
      'too_many_requests',
      'rate_limit',
      'Too many requests; retry after the time in Retry-After.',
      undefined,
      headers,
    );
  }
  /** The client address made too many failed authentication attempts (docs/security.md, "HTTP edge"). */
  static tooManyFailedAttempts(retryAfterSeconds: number): ApiError {
    return new ApiError(
      429,
      'too_many_failed_attempts',
      'rate_limit',
      'Too many failed authentication attempts from this address; retry after the time in Retry-After.',
      undefined,
      { 'Retry-After': String(Math.max(1, retryAfterSeconds)) },
    );
  }
  /** The service is busy (too many request bodies in flight) or shutting down. */
  static serviceUnavailable(message: string, retryAfterSeconds?: number): ApiError {
    return new ApiError(
      503,
      'service_unavailable',
      'unavailable',
      message,
      undefined,
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    );
  }
  static internal(): ApiError {
    return new ApiError(500, 'internal_error', 'server', 'An unexpected error occurred. Quote the request_id when reporting it.');
  }
}
