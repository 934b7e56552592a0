/**
 * The `WWW-Authenticate` challenge of a 401 on the bearer routes (RFC 6750 §3): the realm (`api` for
 * `/v1`, `admin` for `/admin/v1`), and, when a credential was sent and refused, why (`invalid_token`;
 * `invalid_request` for a request with more than one Authorization header). No credential: no error.
 */
export function bearerChallenge(realm: 'api' | 'admin', error?: 'invalid_token' | 'invalid_request'): string {
  return `Bearer realm="${realm}"${error ? `, error="${error}"` : ''}`;
}

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
  /** 401 with its challenge: RFC 9110 §11.6.1 has every 401 name the scheme it takes (`WWW-Authenticate`). */
  static unauthenticated(
    message = 'A valid API key is required (Authorization: Bearer <API_KEY>).',
    challenge = bearerChallenge('api'),
  ): ApiError {
    return new ApiError(401, 'unauthenticated', 'authentication', message, undefined, { 'WWW-Authenticate': challenge });
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
