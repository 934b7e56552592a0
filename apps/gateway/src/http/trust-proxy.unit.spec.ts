import { trustProxyFunction } from './trust-proxy';

describe('TRUST_PROXY', () => {
  it('true and false trust every peer or none', () => {
    expect(trustProxyFunction(true)('203.0.113.9', 0)).toBe(true);
    expect(trustProxyFunction(false)('127.0.0.1', 0)).toBe(false);
  });

  it('a number trusts that many hops', () => {
    const trust = trustProxyFunction(2);
    expect([0, 1, 2].map((hop) => trust('203.0.113.9', hop))).toEqual([true, true, false]);
  });

  it('names, addresses and CIDRs (IPv4-mapped IPv6 peers included)', () => {
    const trust = trustProxyFunction(['loopback', 'uniquelocal', '203.0.113.7', '2001:db8::/32']);
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '192.168.0.4', 'fd00::1', '203.0.113.7', '2001:db8::5']) {
      expect({ peer, trusted: trust(peer, 0) }).toEqual({ peer, trusted: true });
    }
    for (const peer of ['203.0.113.8', '8.8.8.8', '169.254.0.1', '2001:db9::1', 'not-an-address']) {
      expect({ peer, trusted: trust(peer, 0) }).toEqual({ peer, trusted: false });
    }
    expect(trustProxyFunction(['linklocal'])('169.254.0.1', 0)).toBe(true);
  });

  it('refuses what is not an address, a CIDR or a known name', () => {
    expect(() => trustProxyFunction(['proxy.example'])).toThrow(/TRUST_PROXY: "proxy.example"/);
  });
});
