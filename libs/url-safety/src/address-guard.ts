import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Outbound requests to customer-given URLs (webhooks) may only reach public unicast
 * addresses: never loopback, private, link-local, carrier-grade NAT, cloud metadata,
 * multicast or reserved ranges. The check runs on the address the name resolves to, at
 * connect time (request-filtering-agent), so DNS rebinding cannot get around it.
 * `allowed` lists exact addresses let through anyway (tests use it for their loopback receiver).
 */
export function guardedAgents(allowed: string[], keepAlive = false): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  const options = {
    allowPrivateIPAddress: false,
    allowMetaIPAddress: false,
    allowIPAddressList: allowed,
    denyIPAddressList: [],
    keepAlive,
  };
  return { httpAgent: new RequestFilteringHttpAgent(options), httpsAgent: new RequestFilteringHttpsAgent(options) };
}

/**
 * `::a.b.c.d`, the IPv4-compatible IPv6 form (RFC 4291 deprecates it; `::/96` holds no public host): the URL parser writes
 * `[::127.0.0.1]` as `[::7f00:1]`, which ipaddr.js calls unicast. Linux does not route these to IPv4 (a connection fails),
 * so it is refused here for what it spells, not for where it would lead.
 */
const ipv4Compatible = (address: ipaddr.IPv4 | ipaddr.IPv6): boolean =>
  address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);

/**
 * An early, resolution-free check for URLs given at run creation and in the admin API:
 * refuses hosts that are literal non-public addresses (in any spelling the URL parser
 * normalises, e.g. `2130706433` or `0x7f.1` for 127.0.0.1) and `localhost` names.
 * Names that resolve to such addresses are caught when a delivery connects.
 */
export function literalAddressProblem(url: URL, allowed: string[]): string | null {
  // A name's trailing dot (the root: "localhost." is localhost) is not part of the name.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (allowed.includes(host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point to this machine.';
  if (isIP(host) === 0) return null;
  try {
    const address = ipaddr.parse(host);
    return address.range() === 'unicast' && !ipv4Compatible(address)
      ? null
      : 'must not point to a private, loopback, link-local or reserved address.';
  } catch {
    return 'must be a valid URL.';
  }
}
