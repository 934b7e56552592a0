import ipaddr from 'ipaddr.js';
import type { HttpEdgeConfig, TRUST_PROXY_RANGES } from '@app/config';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** proxy-addr's names for address ranges (checked by the config as the process starts), as ipaddr.js calls them. */
const NAMED_RANGES: Record<(typeof TRUST_PROXY_RANGES)[number], string[]> = {
  loopback: ['loopback'],
  linklocal: ['linkLocal'],
  uniquelocal: ['private', 'uniqueLocal'],
};

const inNetwork = (ip: Address, [net, bits]: [Address, number]): boolean =>
  ip.kind() === 'ipv4'
    ? net.kind() === 'ipv4' && (ip as ipaddr.IPv4).match(net, bits)
    : net.kind() === 'ipv6' && (ip as ipaddr.IPv6).match(net, bits);

function network(entry: string): [Address, number] {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const ip = ipaddr.process(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new Error(`TRUST_PROXY: "${entry}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal.`);
  }
}

/**
 * TRUST_PROXY as Fastify's `trustProxy` function `(address, hop) => trusted`: whether the
 * peer at `address` may tell us, in X-Forwarded-For, whom it forwards for. `request.ip`
 * (the key of the failed-authentication throttle) is the nearest address not trusted.
 */
export function trustProxyFunction(setting: HttpEdgeConfig['trustProxy']): (address: string, hop: number) => boolean {
  if (typeof setting === 'boolean') return () => setting;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  const ranges = new Set<string>();
  const networks: Array<[Address, number]> = [];
  for (const entry of setting) {
    const named = NAMED_RANGES[entry.toLowerCase() as keyof typeof NAMED_RANGES] as string[] | undefined;
    if (named) named.forEach((r) => ranges.add(r));
    else networks.push(network(entry));
  }
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.process(address);
    return ranges.has(ip.range()) || networks.some((n) => inNetwork(ip, n));
  };
}
