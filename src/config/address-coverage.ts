// Which part of the address space a TRUST_PROXY list covers. A list that trusts every client
// address is `true` in disguise (0.0.0.0/1 with 128.0.0.0/1, ::/0, ::ffff:0:0/96 …): the client
// would again pick its own address by writing X-Forwarded-For. Addresses are measured in one
// 128-bit space where an IPv4 address a.b.c.d is its mapped form ::ffff:a.b.c.d, and counted as
// the proxy check (proxy-addr) counts them: an IPv4 client, or an IPv4-mapped one, is matched by
// IPv4 CIDRs and by IPv6 CIDRs inside ::ffff:0:0/96; any other IPv6 client by IPv6 CIDRs.
import { isIP } from 'node:net';

const IPV4_MAPPED_START = 0xffffn << 32n;
const IPV4_MAPPED_END = IPV4_MAPPED_START + (1n << 32n) - 1n;
const IPV6_END = (1n << 128n) - 1n;

type Interval = readonly [start: bigint, end: bigint];

/** The family a list of addresses and CIDRs covers entirely, if any. Range names and bad entries are ignored. */
export function familyCoveredEntirely(entries: readonly string[]): 'IPv4' | 'IPv6' | undefined {
  const ranges = entries.map(rangeOf).filter((range) => range !== undefined);
  const ipv4 = ranges.filter((range) => range.version === 4 || range.prefix >= 96).map((range) => range.interval);
  if (covers(ipv4, [IPV4_MAPPED_START, IPV4_MAPPED_END])) return 'IPv4';
  // Every IPv6 address that is not an IPv4 one in disguise.
  const ipv6 = ranges.filter((range) => range.version === 6).map((range) => range.interval);
  if (covers(ipv6, [0n, IPV4_MAPPED_START - 1n]) && covers(ipv6, [IPV4_MAPPED_END + 1n, IPV6_END])) return 'IPv6';
  return undefined;
}

function rangeOf(entry: string): { version: 4 | 6; prefix: number; interval: Interval } | undefined {
  const [address = '', prefixText] = entry.split('/');
  const bare = address.replace(/%.*$/, '');
  const version = isIP(bare);
  if (version !== 4 && version !== 6) return undefined;
  const value = version === 4 ? IPV4_MAPPED_START + ipv4Value(bare) : ipv6Value(bare);
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const start = (value >> hostBits) << hostBits;
  return { version, prefix, interval: [start, start + (1n << hostBits) - 1n] };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) + BigInt(Number(octet)), 0n);
}

function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const tail = ipv4Value(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) + BigInt(parseInt(group, 16)), 0n);
}

/** Whether the union of `intervals` contains every address of `target`. */
function covers(intervals: readonly Interval[], [targetStart, targetEnd]: Interval): boolean {
  let next = targetStart;
  for (const [start, end] of [...intervals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (start > next) break;
    if (end >= next) next = end + 1n;
    if (next > targetEnd) return true;
  }
  return next > targetEnd;
}
