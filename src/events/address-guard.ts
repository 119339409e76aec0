// Which addresses event deliveries may connect to. Endpoint URLs are given by clients, so without
// this a client could make the service POST to the operator's own network (SSRF): loopback,
// private, link-local, unique-local, CGNAT, multicast, documentation and reserved ranges, and the
// IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are refused
// unless the operator allows private addresses (EVENTS_ALLOW_PRIVATE_ADDRESSES, for development
// and tests). The host is resolved when each request is sent and the connection is made to the
// address checked here (no second lookup an attacker's DNS could answer differently).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Separate lists per family: node's BlockList matches IPv4 queries against IPv4-mapped IPv6 rules,
// so one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const REFUSED_V4 = new BlockList();
const REFUSED_V6 = new BlockList();
const IPV4_RANGES: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const IPV6_RANGES: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback (::1) and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
];
for (const [network, prefix] of IPV4_RANGES) REFUSED_V4.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_RANGES) REFUSED_V6.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is one deliveries may not reach (unless private addresses are allowed). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? REFUSED_V4.check(address, 'ipv4') : REFUSED_V6.check(address, 'ipv6');
}

/** What the delivery log says of a refused host: no address, no resolver detail. */
export const NOT_PUBLIC = 'refused: not a public address';
const DOES_NOT_RESOLVE = 'refused: the host name does not resolve';

export class RefusedAddress extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddress';
  }
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
  /** Every address the host resolved to, all checked: a connection may try each (happy eyeballs). */
  all: Array<{ address: string; family: 4 | 6 }>;
}

/**
 * Resolves the URL's host and returns the address to connect to, or throws RefusedAddress when
 * any address it resolves to is refused (a name that also points inside is not trusted at all).
 */
export async function resolveDeliveryAddress(hostname: string, allowPrivate: boolean): Promise<CheckedAddress> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = literal !== 0 ? [{ address: bare, family: literal }] : await lookup(bare, { all: true, verbatim: true });
  } catch {
    // The resolver's own text (ENOTFOUND, SERVFAIL, its server) is the operator's, not the app's.
    throw new RefusedAddress(DOES_NOT_RESOLVE);
  }
  if (addresses.length === 0) throw new RefusedAddress(DOES_NOT_RESOLVE);
  // The text reaches the app (the delivery log): it never names the address, or the log would
  // answer "how does the service resolve this name" for names the app does not control.
  if (!allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address))) throw new RefusedAddress(NOT_PUBLIC);
  const all = addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? (6 as const) : (4 as const) }));
  const first = all[0];
  if (!first) throw new RefusedAddress(DOES_NOT_RESOLVE);
  return { ...first, all };
}
