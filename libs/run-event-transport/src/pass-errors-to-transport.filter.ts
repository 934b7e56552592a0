import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC filter logs a handler's error and replaces it with
 * `{ status: 'error', message: 'Internal server error' }`. The run-events transport needs the
 * error itself, to tell an infrastructure outage (retried for as long as it lasts) from a
 * poison event (dead-lettered after a few attempts), and logs it with the event.
 */
@Catch()
export class PassErrorsToTransport implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
