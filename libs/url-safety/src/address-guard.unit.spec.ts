import http from 'node:http';
import https from 'node:https';
import { guardedAgents, literalAddressProblem } from './address-guard';

/**
 * The guard decides on the address a name resolves to. These tests never connect: the
 * agents' underlying createConnection is replaced by a recorder, and the guarded lookup
 * is driven with a fake resolver, so no packet leaves this process.
 */
describe('webhook address guard at connect time', () => {
  type Lookup = (host: string, options: object, cb: (err: Error | null, address?: string, family?: number) => void) => void;
  let captured: { lookup: Lookup } | null;

  beforeEach(() => {
    captured = null;
    const record = ((options: { lookup: Lookup }) => {
      captured = options;
      return {} as never;
    }) as never;
    jest.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(record);
    jest.spyOn(https.Agent.prototype, 'createConnection').mockImplementation(record);
  });
  afterEach(() => jest.restoreAllMocks());

  /** What the guarded lookup answers when `host` resolves to `address` (through a fake resolver). */
  function resolveThroughGuard(agent: http.Agent, host: string, address: string): Promise<{ error: string | null; address?: string }> {
    const fake: Lookup = (_h, _o, cb) => cb(null, address, address.includes(':') ? 6 : 4);
    (agent as unknown as { createConnection(o: object): unknown }).createConnection({ host, port: 443, lookup: fake });
    return new Promise((resolve) =>
      captured!.lookup(host, {}, (err, resolved) => resolve({ error: err ? err.message : null, address: resolved })),
    );
  }

  it.each([
    ['127.0.0.1 behind a hostname (DNS rebinding)', 'rebind.example.com', '127.0.0.1'],
    ['localhost', 'localhost', '127.0.0.1'],
    ['IPv6 loopback', 'six.example.com', '::1'],
    ['IPv4-mapped private address', 'mapped.example.com', '::ffff:10.0.0.1'],
    ['cloud metadata', 'metadata.example.com', '169.254.169.254'],
    ['private 10/8', 'intranet.example.com', '10.0.0.1'],
    ['private 192.168/16', 'router.example.com', '192.168.1.1'],
    ['carrier-grade NAT', 'cgn.example.com', '100.64.0.1'],
    ['unspecified', 'zero.example.com', '0.0.0.0'],
    ['unique local IPv6', 'ula.example.com', 'fd00::1'],
  ])('refuses %s', async (_name, host, address) => {
    for (const agent of Object.values(guardedAgents([]))) {
      const result = await resolveThroughGuard(agent, host, address);
      expect(result.error).toMatch(/is not allowed/);
    }
  });

  it('lets a public address through, and an explicitly allowed one', async () => {
    const { httpAgent } = guardedAgents([]);
    expect(await resolveThroughGuard(httpAgent, 'api.example.com', '93.184.216.34')).toEqual({ error: null, address: '93.184.216.34' });
    const { httpAgent: allowing } = guardedAgents(['127.0.0.1']);
    expect((await resolveThroughGuard(allowing, 'receiver.test', '127.0.0.1')).error).toBeNull();
    expect((await resolveThroughGuard(allowing, 'other.test', '127.0.0.2')).error).toMatch(/is not allowed/);
  });

  it.each(['127.0.0.1', '::1', '10.0.0.1', '169.254.169.254', '::ffff:10.0.0.1'])(
    'refuses the literal address %s before any lookup',
    (host) => {
      for (const agent of Object.values(guardedAgents([]))) {
        expect(() => (agent as unknown as { createConnection(o: object): unknown }).createConnection({ host, port: 80 })).toThrow(
          /is not allowed/,
        );
      }
      expect(captured).toBeNull();
    },
  );
});

describe('URLs given at run creation and in the admin API', () => {
  it.each([
    'http://127.0.0.1/h',
    'http://2130706433/h',
    'http://0x7f.0.0.1/h',
    'http://0177.0.0.1/h',
    'http://127.1/h',
    'http://localhost:8080/h',
    'http://api.localhost/h',
    // The root's dot: the same names.
    'http://localhost.:8080/h',
    'http://api.localhost./h',
    'http://LOCALHOST../h',
    'http://[::1]/h',
    'http://[::ffff:10.0.0.1]/h',
    // IPv4-compatible IPv6 (the parser writes it ::7f00:1, which ipaddr.js calls unicast), public IPv4 inside too.
    'http://[::127.0.0.1]:47811/x',
    'http://[::8.8.8.8]/h',
    'http://[::7f00:1]/h',
    'http://169.254.169.254/latest',
    'http://10.0.0.1/h',
    'http://100.64.0.1/h',
    'http://192.168.0.10/h',
    'http://0.0.0.0/h',
  ])('refuses %s', (url) => expect(literalAddressProblem(new URL(url), [])).not.toBeNull());

  it.each([
    'https://hooks.example.com/x',
    'https://hooks.example.com./x',
    'http://93.184.216.34/h',
    'https://[2606:4700::1111]/h',
    'http://[1::7f00:1]/h',
  ])('accepts %s', (url) => expect(literalAddressProblem(new URL(url), [])).toBeNull());

  it("lets an explicitly allowed address through (tests' loopback receivers)", () => {
    expect(literalAddressProblem(new URL('http://127.0.0.1:9999/h'), ['127.0.0.1'])).toBeNull();
    expect(literalAddressProblem(new URL('http://[::1]:9999/h'), ['::1'])).toBeNull();
  });
});
