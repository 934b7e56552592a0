import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import type { AppConfig } from '@app/config';
import type { Directory } from '@app/directory';
import { WebhookTestEvents } from './test-event';
import { readExcerpt, RESPONSE_EXCERPT_CHARS, WebhookSender } from './webhook-sender';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

/** A receiver on loopback: answers each request with the handler's status and body. */
async function receiver(handler: (body: string, headers: Record<string, unknown>) => { status: number; body?: string; endless?: boolean }) {
  const got: { body: string; headers: Record<string, unknown> }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push({ body, headers: req.headers });
      const answer = handler(body, req.headers);
      res.writeHead(answer.status);
      if (!answer.endless) return void res.end(answer.body ?? '');
      const timer = setInterval(() => res.write('x'.repeat(8192)), 2);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// A timeout no loopback request reaches, even on a stalled CI machine: no test here waits for it. Under jest's
// 30 s, so a send that hangs fails with the sender's own error.
const config = { webhooks: { allowedAddresses: ['127.0.0.1'], timeoutMs: 20_000 } } as unknown as AppConfig;
const message = { deliveryId: 'd-1', event: 'transformation.finished' as const, runId: 'run-1', secret: SECRET, body: '{"a":1}' };

/** Fake timers for setTimeout/clearTimeout alone: streams, sockets and the receiver's interval run for real. */
const ONLY_TIMEOUTS_FAKED = [
  'Date',
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
] as const;

describe('WebhookSender', () => {
  it('measures the attempt and keeps the first 512 characters of the answer', async () => {
    const r = await receiver(() => ({ status: 500, body: `é${'y'.repeat(1000)}` }));
    try {
      const started = performance.now();
      const result = await new WebhookSender(config).send(r.url, message);
      const took = performance.now() - started;
      expect(result).toMatchObject({ delivered: false, statusCode: 500, error: 'HTTP 500' });
      expect(result.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_CHARS);
      expect(result.responseExcerpt!.startsWith('éyyy')).toBe(true);
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      // Milliseconds of this attempt: no more than the call took, whatever the machine's load.
      expect(result.durationMs).toBeLessThanOrEqual(Math.ceil(took));
    } finally {
      await r.close();
    }
  });

  it('a receiver that echoes the request shows no secret in the excerpt, in any of the ways it may write it', async () => {
    const r = await receiver((_body, headers) => {
      const secret = String(headers['x-service-webhook-secret']);
      return { status: 200, body: `${JSON.stringify({ h: headers }).replace(/\//g, '\\/')} ${encodeURIComponent(secret)}` };
    });
    try {
      const result = await new WebhookSender(config).send(r.url, message);
      expect(r.got[0].headers['x-service-webhook-secret']).toBe(SECRET);
      expect(result.responseExcerpt).toContain('"x-service-webhook-secret":"whsec_[hidden]"');
      expect(result.responseExcerpt).not.toContain(SECRET.slice(6, 16));
      expect(result.responseExcerpt).not.toContain(encodeURIComponent(SECRET).slice(6, 16));
    } finally {
      await r.close();
    }
  });

  it('a short answer is kept whole; an empty one is null', async () => {
    const answers = [{ status: 200, body: 'ok' }, { status: 204 }];
    const r = await receiver(() => answers.shift()!);
    try {
      const sender = new WebhookSender(config);
      expect(await sender.send(r.url, message)).toMatchObject({ delivered: true, statusCode: 200, responseExcerpt: 'ok' });
      expect(await sender.send(r.url, message)).toMatchObject({ delivered: true, statusCode: 204, responseExcerpt: null });
    } finally {
      await r.close();
    }
  });

  it('an endless answer costs a few KB: the excerpt is taken and the stream dropped', async () => {
    const r = await receiver(() => ({ status: 200, endless: true }));
    // setTimeout faked (the receiver's interval and the sockets' timers are real): the excerpt's
    // one-second wait never ends, so the send returns only if it stopped at the excerpt's size;
    // no wall-clock bound for a stalled machine to cross.
    jest.useFakeTimers({ doNotFake: [...ONLY_TIMEOUTS_FAKED] });
    try {
      const result = await new WebhookSender(config).send(r.url, message);
      expect(result).toMatchObject({ delivered: true, responseExcerpt: 'x'.repeat(RESPONSE_EXCERPT_CHARS) });
      expect(jest.getTimerCount()).toBe(0); // the excerpt's wait was cleared, not left running
    } finally {
      jest.useRealTimers();
      await r.close();
    }
  });

  it('no answer: status and excerpt null, the error said, the duration measured', async () => {
    const result = await new WebhookSender(config).send('http://127.0.0.1:1/hooks', message);
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'connection refused', responseExcerpt: null });
    expect(typeof result.durationMs).toBe('number');
  });

  it('a non-public address is refused at connect time', async () => {
    const result = await new WebhookSender({ webhooks: { allowedAddresses: [], timeoutMs: 2000 } } as unknown as AppConfig).send(
      'http://127.0.0.1:1/hooks',
      message,
    );
    expect(result).toMatchObject({ delivered: false, error: 'refused: the address is not public' });
  });
});

describe('readExcerpt', () => {
  it('stops waiting after the limit: a stalled body gives what came so far', async () => {
    // On a fake setTimeout: it gives up exactly at the limit, however slow the machine.
    jest.useFakeTimers({ doNotFake: [...ONLY_TIMEOUTS_FAKED] });
    try {
      const stalled = new Readable({ read() {} });
      stalled.push('partial');
      let excerpt: string | null | undefined;
      void readExcerpt(stalled, 100).then((e) => (excerpt = e));
      await jest.advanceTimersByTimeAsync(99);
      expect(excerpt).toBeUndefined();
      expect(stalled.destroyed).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(excerpt).toBe('partial');
      expect(stalled.destroyed).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('WebhookTestEvents', () => {
  const directory = (org: unknown) => ({ getOrganization: async () => org }) as unknown as Directory;

  it('sends a marked test event, signed like a real delivery with the organization secret', async () => {
    const r = await receiver(() => ({ status: 202, body: 'thanks' }));
    try {
      const sender = new WebhookSender(config);
      const result = await new WebhookTestEvents(sender, directory({ id: 'org-1', webhook_secret: SECRET })).send('org-1', r.url);
      expect(result).toEqual({ delivered: true, status_code: 202, error: null, duration_ms: expect.any(Number) });
      const [{ body, headers }] = r.got;
      const payload = JSON.parse(body);
      expect(payload).toMatchObject({ event: 'webhook.test', test: true, organization_id: 'org-1' });
      expect(headers).toMatchObject({
        'x-service-event': 'webhook.test',
        'x-service-id': payload.id,
        'x-service-webhook-secret': SECRET,
        'webhook-id': payload.id,
      });
      const signed = {
        'webhook-id': headers['webhook-id'] as string,
        'webhook-timestamp': headers['webhook-timestamp'] as string,
        'webhook-signature': headers['webhook-signature'] as string,
      };
      expect(new Webhook(SECRET).verify(body, signed)).toEqual(payload);
    } finally {
      await r.close();
    }
  });

  it('reports a failing receiver, and an unknown organization without sending', async () => {
    const r = await receiver(() => ({ status: 503, body: 'down' }));
    try {
      const sender = new WebhookSender(config);
      const failing = await new WebhookTestEvents(sender, directory({ id: 'org-1', webhook_secret: SECRET })).send('org-1', r.url);
      expect(failing).toMatchObject({ delivered: false, status_code: 503, error: 'HTTP 503' });
      const unknown = await new WebhookTestEvents(sender, directory(null)).send('org-2', r.url);
      expect(unknown).toMatchObject({ delivered: false, status_code: null });
      expect(r.got).toHaveLength(1);
    } finally {
      await r.close();
    }
  });
});
