import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiError } from '../http/api-error';
import { statusError } from '../http/error-envelope.filter';

/**
 * The error side of the OpenAPI documents: the two envelopes, the headers every answer
 * carries, and one shared response per error status (with examples taken from the errors
 * the code really throws). Operations refer to these by `$ref`.
 */

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

export const ERROR_RESPONSE_NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'ValidationFailed',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/**
 * The errors a route itself gives (404 for an unknown id, 422 for its body or query). The
 * document builder replaces each by a `$ref` to the shared response; the errors every
 * operation of a kind gives (401, 429, 500; 400, 413, 415 for methods with a body) are
 * added there, not here (see standard-responses.ts).
 */
export const ApiErrorResponses = (...statuses: ErrorStatus[]) =>
  applyDecorators(...statuses.map((status) => ApiResponse({ status, description: ERROR_RESPONSE_NAMES[status] })));

export type Json = Record<string, unknown>;

export interface ErrorComponentOptions {
  /** The public API: rate-limit headers, 429, and the contract's unattached 403 and 409. */
  audience: 'public' | 'admin';
  maxJsonBodyBytes: number;
}

const REQUEST_ID_EXAMPLE = '0b5e4a6c-3f1d-4f53-9a38-1d2c7e8f9a10';

type Example = ReturnType<typeof example>;
const example = (summary: string, err: ApiError) => ({
  summary,
  value: {
    error: {
      code: err.code,
      message: err.message,
      type: err.type,
      request_id: REQUEST_ID_EXAMPLE,
      ...(err.fields ? { fields: err.fields } : {}),
    },
  },
});

const errorObject = (extra: Json = {}, required: string[] = []): Json => ({
  type: 'object',
  required: ['code', 'message', 'type', 'request_id', ...required],
  properties: {
    code: { type: 'string', description: 'Stable machine-readable code.', examples: ['not_found'] },
    message: { type: 'string', description: 'Human-readable message.' },
    type: { type: 'string', description: 'High-level category.', examples: ['not_found'] },
    request_id: { type: 'string', description: 'Id to correlate with server logs; equals the X-Request-Id header.' },
    ...extra,
  },
});

/** The envelopes; a public 422 may name the Idempotency-Key header in `fields` (the key reused with another request). */
const schemas = (pub: boolean): Record<string, Json> => ({
  ErrorEnvelope: {
    type: 'object',
    description: 'Body of every error except validation errors.',
    required: ['error'],
    properties: { error: errorObject() },
  },
  ValidationErrorEnvelope: {
    type: 'object',
    description: 'Body of 422: the error envelope plus `error.fields`.',
    required: ['error'],
    properties: {
      error: errorObject(
        {
          code: { const: 'validation_failed' },
          type: { const: 'validation' },
          fields: {
            type: 'object',
            description: pub
              ? 'Messages by field name (nested fields are dotted, e.g. `column_labels.nope`; `Idempotency-Key` names the header).'
              : 'Messages by field name (nested fields are dotted, e.g. `fields.age.data_type`).',
            minProperties: 1,
            additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
          },
        },
        ['fields'],
      ),
    },
  },
});

const integerHeader = (description: string, minimum: number, required = true): Json => ({
  description,
  required,
  schema: { type: 'integer', minimum },
});

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "The request's id, a UUID the service generates (a caller's own X-Request-Id is never used as it: see X-Client-Request-Id). Error bodies repeat it as `error.request_id`.",
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
  'X-Client-Request-Id': {
    description:
      "The caller's own X-Request-Id, echoed (and logged beside ours) when it is 1 to 100 characters of `A-Z a-z 0-9 . _ -`; absent otherwise.",
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' },
  },
  'X-Frame-Options': {
    description: "No answer may be framed (sent with `Content-Security-Policy: frame-ancestors 'none'`).",
    required: true,
    schema: { type: 'string', const: 'DENY' },
  },
  'X-RateLimit-Limit': integerHeader('Requests allowed per API key in a fixed one-minute window.', 0),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window.', 0),
  'X-RateLimit-Reset': integerHeader('When the current window ends, in Unix epoch seconds.', 0),
};
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/** Sent with every answer (http/http-edge.ts). */
const EDGE_HEADERS = ['X-Request-Id', 'X-Client-Request-Id', 'X-Frame-Options'];

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of a response: the request ids and X-Frame-Options always; the rate-limit ones when the API-key guard let the request through. */
export function responseHeaders(rateLimit: 'required' | 'optional' | 'none'): Json {
  const headers: Json = Object.fromEntries(EDGE_HEADERS.map((name) => [name, ref(name)]));
  for (const name of RATE_LIMIT_HEADERS) {
    if (rateLimit === 'required') headers[name] = ref(name);
    if (rateLimit === 'optional') headers[name] = { ...HEADERS[name], required: false };
  }
  return headers;
}

export function errorComponents({ audience, maxJsonBodyBytes }: ErrorComponentOptions) {
  const pub = audience === 'public';
  // Errors raised once the API-key guard has passed carry the rate-limit headers.
  const afterGuard = pub ? 'required' : 'none';
  const response = (description: string, examples: Example[], rateLimit: 'required' | 'optional' | 'none', extraHeaders: Json = {}) => ({
    description,
    headers: { ...responseHeaders(rateLimit), ...extraHeaders },
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${examples[0].value.error.fields ? 'ValidationErrorEnvelope' : 'ErrorEnvelope'}` },
        examples: Object.fromEntries(examples.map((e) => [e.summary.replace(/[^A-Za-z0-9]+/g, '_'), e])),
      },
    },
  });
  const bodyNote = pub
    ? 'The body is read only once the API key was checked (without one the answer is 401) and the request counted against its rate limit, so this answer carries the rate-limit headers.'
    : 'The body is read only once the credential was checked (without one the answer is 401).';
  const failedAttempts = example('too many failed attempts', ApiError.tooManyFailedAttempts(60));
  const responses: Record<string, Json> = {
    // `optional`: an HTTP/1.1 request without a Host header is refused before its key is looked at.
    BadRequest: response(
      `The body is not valid JSON. ${bodyNote} (A request without a Host header is refused with 400 before that, without them.)`,
      [example('malformed JSON', statusError(400))],
      pub ? 'optional' : 'none',
    ),
    Unauthenticated: response(
      pub ? 'Missing, invalid or revoked API key.' : 'Missing or wrong admin token, or ADMIN_TOKEN is not set.',
      pub
        ? [
            example('no key', ApiError.unauthenticated()),
            example('unknown or revoked key', ApiError.unauthenticated('The API key is invalid or was revoked.')),
          ]
        : [
            example(
              'no or wrong token',
              ApiError.unauthenticated('A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).'),
            ),
          ],
      'none',
      {
        'WWW-Authenticate': {
          description: `The challenge (RFC 6750): \`Bearer realm="${pub ? 'api' : 'admin'}"\`, with \`, error="invalid_token"\` when the ${pub ? 'key' : 'token'} sent was refused and \`, error="invalid_request"\` when more than one Authorization header was sent.`,
          required: true,
          schema: { type: 'string', pattern: '^Bearer realm=' },
        },
      },
    ),
    NotFound: response(
      'The resource named in the path does not exist (or belongs to another organization).',
      pub
        ? [
            example('run', ApiError.notFound('transformation run')),
            example('provider', ApiError.notFound('provider')),
            example('schema', ApiError.notFound('schema')),
          ]
        : [example('organization', ApiError.notFound('organization')), example('schema', ApiError.notFound('schema'))],
      afterGuard,
    ),
    PayloadTooLarge: response(
      `The body is larger than ${maxJsonBodyBytes} bytes (MAX_JSON_BODY_BYTES). ${bodyNote}`,
      [example('too large', statusError(413))],
      afterGuard,
    ),
    UnsupportedMediaType: response(
      `The body's Content-Type is neither application/json nor text/plain (a text/plain body is not an object, so it gets 422), declares a charset other than UTF-8, or the body has a Content-Encoding. ${bodyNote}`,
      [example('wrong content type', statusError(415))],
      afterGuard,
    ),
    ValidationFailed: response(
      'The given data was invalid.',
      pub
        ? [
            example(
              'body',
              ApiError.validation({ schema_id: ['The selected schema id is invalid.'], filename: ['The filename field is required.'] }),
            ),
            example('paging', ApiError.validation({ per_page: ['The per page field must be an integer between 1 and 100.'] })),
            example(
              'body too deep',
              ApiError.validation({ 'metadata.a.a.a': ['Objects and arrays must not be nested more than 32 levels deep.'] }),
            ),
            example(
              'idempotency key reused',
              ApiError.validation({
                'Idempotency-Key': [
                  'This key was used with a different request (another body or endpoint) in the last 24 hours; use a new key for a new request.',
                ],
              }),
            ),
          ]
        : [example('body', ApiError.validation({ name: ['The name field is required.'] }))],
      afterGuard,
    ),
    InternalError: response('Unexpected error.', [example('internal', ApiError.internal())], pub ? 'optional' : 'none'),
    ServiceUnavailable: response(
      `The service is busy (too many request bodies in flight together; retry after Retry-After) or shutting down.${pub ? ' A busy answer to an API request comes after its key was checked and counted, so it carries the rate-limit headers; one while shutting down does not.' : ''}`,
      [
        example('busy', ApiError.serviceUnavailable('The service is busy; retry after the time in Retry-After.', 1)),
        example('shutting down', ApiError.serviceUnavailable('The service is shutting down; retry shortly.')),
      ],
      pub ? 'optional' : 'none',
      { 'Retry-After': integerHeader('Seconds to wait before retrying; sent when the service is busy.', 1, false) },
    ),
    // The admin API is not rate limited: its 429 is the failed-authentication throttle only (http/auth-throttle.ts).
    TooManyRequests: response(
      "The caller's address made too many failed authentication attempts (`too_many_failed_attempts`); no credential is looked at until Retry-After has passed.",
      [failedAttempts],
      'none',
      { 'Retry-After': integerHeader('Seconds until the failed-authentication block ends.', 1) },
    ),
  };
  if (pub) {
    responses.TooManyRequests = response(
      "The API key's rate limit is used up (`too_many_requests`, with Retry-After), or, on POST /v1/transformations/file without dry_run, the organization's review-preparation quota is (`review_preparation_quota_exceeded`, no Retry-After: it does not reset with time), or the caller's address made too many failed authentication attempts (`too_many_failed_attempts`, with Retry-After; answered before any key is looked at, so without rate-limit headers).",
      [
        example('rate limit', ApiError.tooManyRequests()),
        example(
          'quota',
          new ApiError(
            429,
            'review_preparation_quota_exceeded',
            'quota_exceeded',
            'The organization has used all 100 review preparations of its quota. Dry runs are still possible; ask an administrator to raise the quota.',
          ),
        ),
        failedAttempts,
      ],
      'optional',
      {
        'Retry-After': integerHeader(
          'Seconds until the rate-limit window or the failed-authentication block ends; not sent with the quota.',
          1,
          false,
        ),
      },
    );
    // The contract defines 403 without attaching it to an operation; none answers it today. 409 is the POSTs' idempotency conflict.
    responses.Forbidden = response(
      'The action is not allowed. (Defined by the contract; no operation answers it today.)',
      [example('forbidden', ApiError.forbidden('forbidden', 'This action is not allowed.'))],
      'optional',
    );
    responses.Conflict = response(
      'A request with the same Idempotency-Key is still in progress (`idempotency_key_in_use`); retry after Retry-After. Nothing was created by this request.',
      [
        example(
          'idempotency key in use',
          ApiError.conflict(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still in progress; retry it once that one has finished.',
          ),
        ),
      ],
      'required',
      { 'Retry-After': integerHeader('Seconds to wait before retrying.', 1) },
    );
  }
  const headers = pub ? HEADERS : Object.fromEntries(EDGE_HEADERS.map((name) => [name, HEADERS[name]]));
  return { schemas: schemas(pub), headers, responses };
}
