import type { ArgumentsHost } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { ErrorEnvelopeFilter, toApiError } from './error-envelope.filter';

describe('ErrorEnvelopeFilter outside HTTP', () => {
  it("hands a run-event handler's error back unchanged (the one-process app shares this global filter with the transport)", async () => {
    const host = { getType: () => 'rpc', switchToHttp: () => ({}) } as unknown as ArgumentsHost;
    const original = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const result = new ErrorEnvelopeFilter().catch(original, host);
    expect(isObservable(result)).toBe(true);
    await expect(lastValueFrom(result!)).rejects.toBe(original);
  });
});

describe('toApiError', () => {
  const request = (readableAborted: boolean) =>
    ({ id: 'req-1', headers: {}, raw: { readableAborted } }) as unknown as Parameters<typeof toApiError>[1];

  it('says a client that closed the connection mid-body in one line, not as an error with its stack', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
      expect(toApiError(aborted, request(true))).toMatchObject({ status: 400, code: 'bad_request' });
      expect(error).not.toHaveBeenCalled();
      expect(log).toHaveBeenCalledWith(expect.stringContaining('the client closed the connection before its body was whole'));
      // The same error while the body was whole is ours: a 500, logged with its stack.
      expect(toApiError(aborted, request(false))).toMatchObject({ status: 500 });
      expect(error).toHaveBeenCalledWith(expect.stringContaining('Error: aborted'));
    } finally {
      error.mockRestore();
      log.mockRestore();
    }
  });
});
