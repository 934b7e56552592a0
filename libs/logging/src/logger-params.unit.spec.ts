import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { startInMemoryTracing } from '@app/tracing/testing/in-memory-tracing';
import { loggerOptions } from './logger-params';
import { redactUrl } from './redact-url';

/** A pino logger with the service's settings, writing its lines into an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino(loggerOptions({ level: 'info' }), sink), lines };
}

describe('log settings', () => {
  it('redacts credentials wherever they sit in a logged object', () => {
    const { logger, lines } = capture();
    const headers = { authorization: 'Bearer sk-live', 'x-api-key': 'k', accept: 'application/json' };
    logger.info(
      { call: { headers }, provider: { api_key: 'sk-p', secret: 's' }, req: { method: 'GET', url: '/r/1?signature=s', headers } },
      'x',
    );
    expect(lines[0]).toMatchObject({
      call: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'application/json' } },
      provider: { api_key: '[redacted]', secret: '[redacted]' },
    });
    // A request is logged as its method, URL (signature redacted) and id: never its headers.
    expect(lines[0].req).toEqual({ method: 'GET', url: '/r/1?signature=[redacted]' });
  });

  it('redacts credentials at the top of a line too (a Nest Logger call with an object)', () => {
    const { logger, lines } = capture();
    logger.info({ api_key: 'sk-p', token: 't', password: 'p', context: 'Test' }, 'x');
    expect(lines[0]).toMatchObject({ api_key: '[redacted]', token: '[redacted]', password: '[redacted]', context: 'Test' });
  });

  it('names the trace and span of each line written inside a span, and none outside', async () => {
    const tracing = startInMemoryTracing('logging-test');
    try {
      const { logger, lines } = capture();
      logger.info('outside');
      const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
        logger.info('inside');
        span.end();
        return span.spanContext();
      });
      expect(lines[0]).not.toHaveProperty('trace_id');
      expect(lines[1]).toMatchObject({ msg: 'inside', trace_id: ids.traceId, span_id: ids.spanId });
    } finally {
      await tracing.stop();
    }
  });
});

describe('redactUrl', () => {
  it.each([
    ['/review/abc?signature=s3cr3t', '/review/abc?signature=[redacted]'],
    ['/files/k?expires=1&signature=x&a=b', '/files/k?expires=1&signature=[redacted]&a=b'],
    [
      'https://bucket/k?X-Amz-Credential=c&X-Amz-Signature=s&x-id=PutObject',
      'https://bucket/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&x-id=PutObject',
    ],
    ['/v1/transformations/1?page=2', '/v1/transformations/1?page=2'],
    ['/plain', '/plain'],
    // Names a server may still read as the credential's (found by a probe: each reached the log in clear).
    ['/console/api/invitations/i?signature[]=s3cr3t', '/console/api/invitations/i?signature[]=[redacted]'],
    ['/console/api/invitations/i?signature%5B0%5D=s3cr3t', '/console/api/invitations/i?signature%5B0%5D=[redacted]'],
    ['/console/api/invitations/i?signature.x=s3cr3t', '/console/api/invitations/i?signature.x=[redacted]'],
    ['/console/api/invitations/i?a=b;signature=s3cr3t', '/console/api/invitations/i?a=b;signature=[redacted]'],
    ['/console/api/invitations/i?signature%3Ds3cr3t', '/console/api/invitations/i?signature=[redacted]'],
    [
      '/console/api/invitations/i?SIGNATURE=s3cr3t&%73ignature=s3cr3t',
      '/console/api/invitations/i?SIGNATURE=[redacted]&%73ignature=[redacted]',
    ],
    ['/cb?secret=s&Password=p&sort=password', '/cb?secret=[redacted]&Password=[redacted]&sort=password'],
    [
      '/cb?access_token=t&client_secret=s&api-key=k&sort=key',
      '/cb?access_token=[redacted]&client_secret=[redacted]&api-key=[redacted]&sort=key',
    ],
  ])('%s -> %s', (url, expected) => expect(redactUrl(url)).toBe(expected));
});
