import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandRefused } from '@app/domain';
import { ApiError } from './api-error';

const STATUS_CODES: Record<number, [code: string, type: string, message: string]> = {
  400: ['bad_request', 'invalid_request', 'The request could not be read (malformed JSON or wrong content type).'],
  404: ['not_found', 'not_found', 'The requested resource was not found.'],
  405: ['method_not_allowed', 'invalid_request', 'The method is not allowed on this resource.'],
  413: ['payload_too_large', 'invalid_request', 'The request body is too large.'],
  415: ['unsupported_media_type', 'invalid_request', 'Request bodies must be application/json.'],
};

/** The error for a 4xx that Fastify or Nest raised (unknown route, unreadable or oversize body, ...). */
export function statusError(status: number): ApiError {
  const [code, type, message] = STATUS_CODES[status] ?? ['bad_request', 'invalid_request', 'The request is invalid.'];
  return new ApiError(status, code, type, message);
}

/** Refusals of the run decider, as HTTP answers. */
const REFUSAL_STATUS: Record<string, number> = { review_expired: 403, invalid_mapping: 422 };

/** Turns every error into the spec's envelope, with the request id, and never leaks internals. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const err = this.toApiError(exception, request);
    for (const [k, v] of Object.entries(err.headers)) void reply.header(k, v);
    void reply
      .status(err.status)
      .header('content-type', 'application/json; charset=utf-8')
      .send({
        error: {
          code: err.code,
          message: err.message,
          type: err.type,
          request_id: String(request.id),
          ...(err.fields ? { fields: err.fields } : {}),
        },
      });
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
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
    if (typeof status === 'number' && status >= 400 && status < 500) return statusError(status);
    this.logger.error(`request ${String(request.id)} failed: ${(exception as Error)?.stack ?? String(exception)}`);
    return ApiError.internal();
  }
}
