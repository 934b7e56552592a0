import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AppConfig } from '@app/config';
import { readHookAnswer, type CustomerFinding, type ValidateRequest } from './hook-answer';
import { ValidationHookClient } from './validation-hook.client';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

type Answer = { status: number; body?: string } | 'hang' | 'reset';

/** A hook on loopback: each request gets the next answer of `plan` (the last one repeats); `received` hears each request. */
async function hook(plan: Answer[], received: () => void = () => undefined) {
  const got: { body: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      received();
      const answer = plan.length > 1 ? plan.shift()! : plan[0];
      if (answer === 'hang') return;
      if (answer === 'reset') return void req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
  return {
    url,
    got,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const config = (allowed = ['127.0.0.1'], attempts = 3) =>
  ({
    webhooks: { allowedAddresses: allowed },
    validationHook: { timeoutMs: 300, attempts, retryBaseMs: 20, batchRows: 100, maxRows: 1000, deadlineMs: 5000 },
  }) as unknown as AppConfig;

const request: ValidateRequest = {
  type: 'review.validate',
  run_id: 'run-1',
  schema_id: 'schema-1',
  rows: [
    { row: 1, values: { email: 'a@example.com', age: 30 } },
    { row: 2, values: { email: 'b@example', age: null } },
  ],
};
const FIELDS = ['email', 'age'];
const forever = () => new AbortController().signal;

describe('ValidationHookClient', () => {
  it('posts the batch signed per Standard Webhooks with the organization secret, and reads the findings', async () => {
    const answer = { results: [{ row: 2, field: 'email', message: 'Unknown domain', corrected_value: 'b@example.com' }] };
    const h = await hook([{ status: 200, body: JSON.stringify(answer) }]);
    try {
      const outcome = await new ValidationHookClient(config()).send(h.url, SECRET, request, FIELDS, forever());
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.findings.get(2)?.get('email')).toEqual({ message: 'Unknown domain', corrected_value: 'b@example.com' });
      const [{ body, headers }] = h.got;
      expect(JSON.parse(body)).toEqual(request);
      expect(headers).toMatchObject({ 'x-service-event': 'review.validate', 'x-service-id': 'run-1' });
      // Signed, and the secret itself is not sent.
      expect(JSON.stringify(headers)).not.toContain(SECRET);
      const signed = {
        'webhook-id': headers['webhook-id'] as string,
        'webhook-timestamp': headers['webhook-timestamp'] as string,
        'webhook-signature': headers['webhook-signature'] as string,
      };
      expect(new Webhook(SECRET).verify(body, signed)).toEqual(request);
      expect(() =>
        new Webhook(`whsec_${Buffer.from('another-secret-another-secret-00').toString('base64')}`).verify(body, signed),
      ).toThrow();
    } finally {
      await h.close();
    }
  });

  it('tries again after a 503 and a reset connection, with the same webhook-id', async () => {
    const h = await hook([{ status: 503 }, 'reset', { status: 200, body: '{"results":[]}' }]);
    try {
      const outcome = await new ValidationHookClient(config()).send(h.url, SECRET, request, FIELDS, forever());
      expect(outcome).toEqual({ ok: true, findings: new Map() });
      expect(h.got).toHaveLength(3);
      expect(new Set(h.got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('a hook that never answers is a timeout, after every attempt', async () => {
    const h = await hook(['hang']);
    try {
      const started = Date.now();
      const outcome = await new ValidationHookClient(config(['127.0.0.1'], 2)).send(h.url, SECRET, request, FIELDS, forever());
      expect(outcome).toEqual({ ok: false, reason: 'timeout', detail: 'no answer within the timeout' });
      expect(h.got).toHaveLength(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    } finally {
      await h.close();
    }
  });

  it('stops waiting when the review stops waiting (the signal)', async () => {
    // The review stops waiting once the hook has the request (a fixed delay raced the request on a loaded machine).
    const review = new AbortController();
    const h = await hook(['hang'], () => review.abort());
    try {
      const outcome = await new ValidationHookClient(config()).send(h.url, SECRET, request, FIELDS, review.signal);
      expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
      // Without the signal the client would have tried three times (config: 3 attempts of 300 ms).
      expect(h.got).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it.each([
    ['not JSON', '<html>oops</html>', 'the answer is not JSON'],
    ['no results', '{"ok":true}', 'the answer has no "results" list'],
    ['a row not sent', '{"results":[{"row":7,"field":"email","message":"x"}]}', 'results[0].row is not a row of the batch'],
  ])('an answer that is %s is garbage, never a crash', async (_what, body, problem) => {
    const h = await hook([{ status: 200, body }]);
    try {
      const outcome = await new ValidationHookClient(config()).send(h.url, SECRET, request, FIELDS, forever());
      expect(outcome).toEqual({ ok: false, reason: 'garbage', detail: problem });
      expect(h.got).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('a 4xx is not tried again; a refused address and a closed port are said', async () => {
    const h = await hook([{ status: 400, body: 'bad' }]);
    try {
      expect(await new ValidationHookClient(config()).send(h.url, SECRET, request, FIELDS, forever())).toEqual({
        ok: false,
        reason: 'http_error',
        detail: 'HTTP 400',
      });
      expect(h.got).toHaveLength(1);
      expect(await new ValidationHookClient(config([])).send(h.url, SECRET, request, FIELDS, forever())).toMatchObject({
        ok: false,
        reason: 'refused',
      });
      expect(h.got).toHaveLength(1);
    } finally {
      await h.close();
    }
    expect(
      await new ValidationHookClient(config(['127.0.0.1'], 1)).send('http://127.0.0.1:1/x', SECRET, request, FIELDS, forever()),
    ).toEqual({
      ok: false,
      reason: 'unreachable',
      detail: 'connection refused',
    });
  });
});

describe('readHookAnswer', () => {
  const read = (answer: unknown) => readHookAnswer(JSON.stringify(answer), [1, 2], FIELDS);

  it('joins two results for one cell and keeps the first correction; numbers and booleans become text', () => {
    const answer = read({
      results: [
        { row: 1, field: 'age', message: 'Too young', corrected_value: 18 },
        { row: 1, field: 'age', message: ' Check the ID ', corrected_value: 21 },
        { row: 2, field: 'email', message: 'Blocked', corrected_value: null },
      ],
    });
    expect(answer).toEqual({
      ok: true,
      findings: new Map<number, Map<string, CustomerFinding>>([
        [1, new Map([['age', { message: 'Too young; Check the ID', corrected_value: '18' }]])],
        [2, new Map([['email', { message: 'Blocked', corrected_value: null }]])],
      ]),
    });
  });

  it.each([
    [[], 'the answer has no "results" list'],
    [{ results: [1] }, 'results[0] is not an object'],
    [{ results: [{ row: 1, field: 'email', message: 'x', corrected: 'y' }] }, 'results[0] has an unknown key "corrected"'],
    [{ results: [{ row: '1', field: 'email', message: 'x' }] }, 'results[0].row is not a row of the batch'],
    [{ results: [{ row: 1, field: 'phone', message: 'x' }] }, 'results[0].field is not a field of the schema'],
    [{ results: [{ row: 1, field: 'email', message: ' ' }] }, 'results[0].message must be non-empty text'],
    [
      { results: [{ row: 1, field: 'email', message: 'x', corrected_value: { a: 1 } }] },
      'results[0].corrected_value must be text, a number, true, false or null',
    ],
    [
      { results: Array.from({ length: 17 }, () => ({ row: 1, field: 'email', message: 'x' })) },
      'the answer has more results than the batch has cells',
    ],
  ])('refuses %j', (answer, problem) => {
    expect(read(answer)).toEqual({ ok: false, problem });
  });

  it('a field named __proto__ or a prototype key is not a field', () => {
    expect(read({ results: [{ row: 1, field: 'constructor', message: 'x' }] })).toMatchObject({ ok: false });
    expect(readHookAnswer('{"results":[{"row":1,"field":"email","message":"x","__proto__":{"a":1}}]}', [1], FIELDS)).toMatchObject({
      ok: false,
    });
  });
});
