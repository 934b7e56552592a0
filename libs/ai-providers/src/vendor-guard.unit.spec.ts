import dns from 'node:dns';
import http, { createServer, type IncomingMessage, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { AiProviders } from './ai-providers';
import type { StructuredRequest } from './ai-vendor.port';

/**
 * A provider's base_url goes through the same address guard as webhooks. Only loopback is
 * ever connected to here: decisions on other addresses are taken on a fake resolver's
 * answer, and the agents' underlying connect is replaced so that even a guard that let
 * one through would not open a socket.
 */
const REQUEST: StructuredRequest = { instructions: 'i', text: 't', schemaName: 's', jsonSchema: { type: 'object' } };
const API_KEY = 'sk-test-guarded-0123456789';

const config = (allowedAddresses: string[], production = false) =>
  ({
    production,
    ai: { timeoutMs: 2000, maxAttempts: 1, retryBaseMs: 1, maxRetryAfterMs: 0, maxOutputTokens: 16, maxImageBytes: 1024, allowedAddresses },
  }) as unknown as AppConfig;

const callVendor = async (vendor: 'openai' | 'anthropic', baseUrl: string, allowed: string[] = [], production = false) =>
  new AiProviders(config(allowed, production)).clientFor(vendor, { model: 'm', apiKey: API_KEY, baseUrl }).generateJson(REQUEST);

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (err: Error & { retryable?: boolean }) => ({ message: err.message, retryable: err.retryable }),
  );

/** A loopback server recording what reaches it. */
async function loopbackServer(handle: (req: IncomingMessage, res: http.ServerResponse) => void) {
  const requests: string[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const UNREACHABLE = { message: 'OpenAI could not be reached.', retryable: true };

let warnings: string[];
beforeEach(() => {
  warnings = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
});
afterEach(() => jest.restoreAllMocks());

describe('AI vendor calls behind the address guard (no socket opened)', () => {
  let connectAttempts: string[];

  beforeEach(() => {
    connectAttempts = [];
    // What the guarded agents hand their checked options to: never really connects.
    type Lookup = (host: string, options: object, cb: (err: Error | null, address?: string) => void) => void;
    const recordInsteadOfConnecting = function (options: { host: string; lookup: Lookup }) {
      // A stream in place of the socket: what the request writes goes nowhere.
      const socket: Duplex = new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() });
      const self = () => socket;
      Object.assign(socket, { setTimeout: self, setNoDelay: self, setKeepAlive: self, ref: self, unref: self });
      options.lookup(options.host, {}, (err, address) => {
        if (!err) connectAttempts.push(address!);
        // Later, as a real connect fails: once the request listens to the socket.
        setImmediate(() => socket.destroy(err ?? new Error(`the test would have connected to ${address}`)));
      });
      return socket;
    } as never;
    jest.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(recordInsteadOfConnecting);
    jest.spyOn(https.Agent.prototype, 'createConnection').mockImplementation(recordInsteadOfConnecting);
  });

  /** The fake resolver: every name resolves to `address` (or fails with `code`). */
  function resolveTo(address: string | { code: string }) {
    return jest.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, cb: (...a: unknown[]) => void) => {
      if (typeof address === 'string') cb(null, address, address.includes(':') ? 6 : 4);
      else cb(Object.assign(new Error(`getaddrinfo ${address.code} localhost`), { code: address.code }));
    }) as never);
  }

  it.each([
    'http://10.0.0.1/v1',
    'http://169.254.169.254/latest',
    'http://127.0.0.1:9/v1',
    'http://[::1]:9/v1',
    'http://[::ffff:10.0.0.1]/v1',
    'https://192.168.1.1/v1',
    'http://2130706433/v1',
  ])('refuses the literal address %s before any lookup, with the generic message', async (baseUrl) => {
    const lookup = resolveTo('93.184.216.34');
    expect(await failureOf(callVendor('openai', baseUrl))).toEqual(UNREACHABLE);
    expect(lookup).not.toHaveBeenCalled();
    expect(connectAttempts).toEqual([]);
    expect(warnings.join('\n')).toMatch(/OpenAI could not be reached: .*is not allowed/);
  });

  it.each([
    '127.0.0.1',
    '::1',
    '10.0.0.1',
    '172.16.0.5',
    '192.168.0.10',
    '169.254.169.254',
    '100.64.0.1',
    '::ffff:10.0.0.1',
    'fd00::1',
    '0.0.0.0',
  ])('refuses a name that resolves to %s (DNS rebinding included), with the generic message', async (address) => {
    resolveTo(address);
    for (const vendor of ['openai', 'anthropic'] as const) {
      const failed = await failureOf(callVendor(vendor, 'http://localhost:8080/v1'));
      expect(failed).toEqual({ message: `${vendor === 'openai' ? 'OpenAI' : 'Anthropic'} could not be reached.`, retryable: true });
    }
    expect(connectAttempts).toEqual([]);
    expect(warnings.join('\n')).toContain(`DNS lookup ${address}`);
  });

  it('a DNS failure gets the same generic message', async () => {
    resolveTo({ code: 'ENOTFOUND' });
    expect(await failureOf(callVendor('openai', 'https://localhost/v1'))).toEqual(UNREACHABLE);
    expect(warnings.join('\n')).toContain('ENOTFOUND');
  });

  it('lets a resolved public address through to the connect step, and an allowed one', async () => {
    resolveTo('93.184.216.34');
    await failureOf(callVendor('openai', 'https://localhost/v1'));
    expect(connectAttempts).toEqual(['93.184.216.34']); // would have connected: the guard passed it
    resolveTo('10.1.2.3');
    await failureOf(callVendor('openai', 'http://localhost/v1', ['10.1.2.3']));
    expect(connectAttempts).toEqual(['93.184.216.34', '10.1.2.3']);
  });

  it('in production, refuses a stored http base_url without calling', async () => {
    const failed = await failureOf(callVendor('openai', 'http://localhost/v1', [], true));
    expect(failed).toEqual({ message: "The provider's base URL must use HTTPS.", retryable: false });
    expect(connectAttempts).toEqual([]);
  });
});

describe('AI vendor calls on loopback (allowed explicitly)', () => {
  it('a closed port answers exactly like a refused address: nothing tells them apart', async () => {
    const closed = await loopbackServer(() => undefined);
    const port = closed.port;
    await closed.close();
    const refusedConnection = await failureOf(callVendor('openai', `http://127.0.0.1:${port}/v1`, ['127.0.0.1']));
    const refusedAddress = await failureOf(callVendor('openai', `http://127.0.0.1:${port}/v1`, []));
    expect(refusedConnection).toEqual(UNREACHABLE);
    expect(refusedAddress).toEqual(refusedConnection);
    expect(warnings.join('\n')).toContain('ECONNREFUSED');
  });

  it('never goes through a proxy from the environment', async () => {
    const vendor = await loopbackServer((_req, res) => res.writeHead(404).end());
    const proxy = await loopbackServer((_req, res) => res.writeHead(502).end());
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      http_proxy: process.env.http_proxy,
      NO_PROXY: process.env.NO_PROXY,
      no_proxy: process.env.no_proxy,
    };
    Object.assign(process.env, { HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '' });
    try {
      const failed = await failureOf(callVendor('openai', `${vendor.url}/v1`, ['127.0.0.1']));
      expect(failed.message).toBe('OpenAI refused the request (HTTP 404).');
      expect(vendor.requests).toEqual(['POST /v1/chat/completions']);
      expect(proxy.connections()).toBe(0);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await vendor.close();
      await proxy.close();
    }
  });

  it('does not follow a redirect: the key never reaches the address it points to', async () => {
    const elsewhere = await loopbackServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const vendor = await loopbackServer((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/v1/messages` }).end());
    try {
      const failed = await failureOf(callVendor('anthropic', vendor.url, ['127.0.0.1']));
      expect(failed).toEqual({ message: 'Anthropic answered with a redirect (HTTP 307).', retryable: false });
      expect(elsewhere.connections()).toBe(0);
    } finally {
      await vendor.close();
      await elsewhere.close();
    }
  });
});
