import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, throwError } from 'rxjs';
import { CommandRefused } from '@app/domain';
import { ApiError } from './api-error';
import { RAW_BYTES_ROUTE, rawBytesExpected } from './raw-bytes-route';
import { clientRequestId } from './request-id';

const STATUS_CODES: Record<number, [code: string, type: string, message: string]> = {
  400: [
    'bad_request',
    'invalid_request',
    'The request could not be read (malformed JSON, a wrong content type, or a body that does not match its Content-Length).',
  ],
  404: ['not_found', 'not_found', 'The requested resource was not found.'],
  405: ['method_not_allowed', 'invalid_request', 'The method is not allowed on this resource.'],
  408: ['request_timeout', 'invalid_request', 'The request was not received in time.'],
  413: ['payload_too_large', 'invalid_request', 'The request body is too large.'],
  414: ['uri_too_long', 'invalid_request', 'The request URL is too long.'],
  415: ['unsupported_media_type', 'invalid_request', 'Request bodies must be application/json.'],
  431: ['request_header_fields_too_large', 'invalid_request', 'The request headers are too large.'],
};

/** The error for a 4xx that Fastify or Nest raised (unknown route, unreadable or oversize body, ...). */
export function statusError(status: number): ApiError {
  const [code, type, message] = STATUS_CODES[status] ?? ['bad_request', 'invalid_request', 'The request is invalid.'];
  return new ApiError(status, code, type, message);
}

/** The envelope's body for an error of the request `requestId`. */
export const errorBody = (err: ApiError, requestId: string) => ({
  error: {
    code: err.code,
    message: err.message,
    type: err.type,
    request_id: requestId,
    ...(err.fields ? { fields: err.fields } : {}),
  },
});

/** Sends an error in the envelope (with its own headers, e.g. Retry-After); from the filter and from the HTTP edge's hooks. */
export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) void reply.header(k, v);
  return reply
    .status(err.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(errorBody(err, String(reply.request.id)));
}

/** Refusals of the run decider, as HTTP answers. */
const REFUSAL_STATUS: Record<string, number> = {
  review_expired: 403,
  invalid_mapping: 422,
  invalid_fix: 422,
  unknown_sheet: 422,
  sheet_empty: 422,
  unknown_encoding: 422,
};

const logger = new Logger('HTTP');

/**
 * Any error as the spec's envelope error: ours as they are, the decider's refusals by their
 * code, Nest's and Fastify's 4xx by their status, and everything else a 500 whose cause is
 * logged (with the request id), never sent.
 */
export function toApiError(exception: unknown, request: FastifyRequest): ApiError {
  if (exception instanceof ApiError) return exception;
  if (exception instanceof CommandRefused) {
    const status = REFUSAL_STATUS[exception.code] ?? 409;
    return new ApiError(
      status,
      exception.code,
      status === 403 ? 'authorization' : status === 422 ? 'validation' : 'conflict',
      exception.message,
    );
  }
  const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
  if (status === 415 && request.routeOptions?.url === RAW_BYTES_ROUTE) return rawBytesExpected();
  if (typeof status === 'number' && status >= 400 && status < 500) return statusError(status);
  const client = clientRequestId(request.headers);
  // The client went away while its body arrived (a dropped upload): nothing of ours failed, and
  // no one is left to answer. Said in one line, not as an error with its stack.
  if (request.raw.readableAborted) {
    logger.log(
      `request ${String(request.id)}${client ? ` (client id ${client})` : ''}: the client closed the connection before its body was whole`,
    );
    return statusError(400);
  }
  logger.error(
    `request ${String(request.id)}${client ? ` (client id ${client})` : ''} failed: ${(exception as Error)?.stack ?? String(exception)}`,
  );
  return ApiError.internal();
}

/** Turns every error into the spec's envelope, with the request id, and never leaks internals. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void | Observable<never> {
    // In the one-process app the run-event handlers share this global filter: their errors go
    // back to the transport unchanged, which classifies, retries or dead-letters them.
    if (host.getType() !== 'http') return throwError(() => exception);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    void sendApiError(reply, toApiError(exception, request));
  }
}
