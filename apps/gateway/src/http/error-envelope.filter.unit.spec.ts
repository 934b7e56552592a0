import type { ArgumentsHost } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { ErrorEnvelopeFilter } from './error-envelope.filter';

describe('ErrorEnvelopeFilter outside HTTP', () => {
  it("hands a run-event handler's error back unchanged (the one-process app shares this global filter with the transport)", async () => {
    const host = { getType: () => 'rpc', switchToHttp: () => ({}) } as unknown as ArgumentsHost;
    const original = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const result = new ErrorEnvelopeFilter().catch(original, host);
    expect(isObservable(result)).toBe(true);
    await expect(lastValueFrom(result!)).rejects.toBe(original);
  });
});
