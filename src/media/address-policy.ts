import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Which network addresses a user-supplied media URL may make us connect to. The rule is an
// allowlist: public unicast only. ipaddr.js names most special ranges; the tables below add the
// ones it lumps together (documentation, benchmarking) so the reason reads clearly in logs and tests.

type Cidr<T> = [T, number];

const v4 = (cidr: string): Cidr<ipaddr.IPv4> => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string): Cidr<ipaddr.IPv6> => ipaddr.IPv6.parseCIDR(cidr);

const EXTRA_V4: Array<[string, Cidr<ipaddr.IPv4>]> = [
  ['documentation', v4('192.0.2.0/24')],
  ['documentation', v4('198.51.100.0/24')],
  ['documentation', v4('203.0.113.0/24')],
  ['benchmarking', v4('198.18.0.0/15')],
];

const EXTRA_V6: Array<[string, Cidr<ipaddr.IPv6>]> = [
  ['documentation', v6('2001:db8::/32')],
  ['documentation', v6('3fff::/20')],
];

/** Clearer names for some of ipaddr.js's IPv6 range names. */
const RENAMED_V6: Record<string, string> = {
  uniqueLocal: 'private',
  rfc6052: 'nat64',
  rfc6145: 'ipv4Translated',
  deprecatedSiteLocal: 'siteLocal',
};

/** The only IPv6 space with public unicast addresses; everything outside it is refused. */
const GLOBAL_UNICAST_V6 = v6('2000::/3');
/** IPv4-compatible addresses (::a.b.c.d): deprecated by RFC 4291, never routed. */
const IPV4_COMPATIBLE = v6('::/96');
/** NAT64 well-known prefix (RFC 6052): a DNS64 resolver hands these out for public IPv4 hosts. */
const NAT64 = v6('64:ff9b::/96');

/**
 * Returns why `address` must not be contacted (a short range name such as 'private', 'loopback'
 * or 'linkLocal'), or undefined for a public unicast address. `allowLoopback` lets exactly
 * 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104 through (for local development and tests).
 * Anything that is not a plain IP address string is refused as 'invalid'.
 */
export function blockedRange(address: string, allowLoopback: boolean): string | undefined {
  // A zone index (fe80::1%eth0) only exists for link-scoped addresses.
  if (address.includes('%')) return 'linkLocal';
  // net.isIP is strict (dotted decimal only), unlike ipaddr.parse, which also takes 0x7f.1.
  const family = isIP(address);
  if (family === 4) return blockedV4(ipaddr.IPv4.parse(address), allowLoopback);
  if (family === 6) return blockedV6(parseV6(address), allowLoopback);
  return 'invalid';
}

/**
 * ipaddr.js reads '::a.b.c.d' as the mapped '::ffff:a.b.c.d', but the kernel connects to the
 * IPv4-compatible ::a.b.c.d: rewrite a dotted IPv4 tail as two hex groups before parsing.
 */
function parseV6(address: string): ipaddr.IPv6 {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!tail) return ipaddr.IPv6.parse(address);
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
  const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  return ipaddr.IPv6.parse(address.slice(0, tail.index) + hex);
}

function blockedV4(address: ipaddr.IPv4, allowLoopback: boolean): string | undefined {
  for (const [name, cidr] of EXTRA_V4) if (address.match(cidr)) return name;
  const range = address.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && allowLoopback) return undefined;
  // Everything else ipaddr.js knows: private, loopback, linkLocal (incl. 169.254.169.254 metadata),
  // multicast, broadcast, unspecified (0/8), carrierGradeNat, reserved (192.0.0/24, 192.88.99/24,
  // 240/4), as112, amt.
  return range;
}

function blockedV6(address: ipaddr.IPv6, allowLoopback: boolean): string | undefined {
  // IPv4-mapped (::ffff:a.b.c.d) reaches the embedded IPv4 host through a dual-stack socket:
  // judge it exactly as that IPv4 address.
  if (address.isIPv4MappedAddress()) return blockedV4(address.toIPv4Address(), allowLoopback);
  const embedded = embeddedV4(address);
  if (address.match(NAT64)) {
    // Allowed only when the embedded IPv4 is public; loopback never passes through a translator.
    return blockedV4(embedded, false);
  }
  const range = address.range();
  if (range === 'loopback' && allowLoopback) return undefined;
  if (range === 'unspecified' || range === 'loopback') return range;
  if (address.match(IPV4_COMPATIBLE)) return blockedV4(embedded, false) ?? 'ipv4Compatible';
  for (const [name, cidr] of EXTRA_V6) if (address.match(cidr)) return name;
  // 6to4 (2002::/16) and Teredo (2001::/32) tunnel to an IPv4 address taken from the address
  // itself (Teredo's client address is even obfuscated). Both are deprecated and no real image
  // host depends on them, so they are refused outright rather than judged by their embedded IPv4.
  // ipaddr.js reports them as '6to4' / 'teredo', and the rest of 2001::/23 (benchmarking, ORCHID,
  // AMT, AS112, …) as their own names or 'reserved'.
  if (range !== 'unicast') return RENAMED_V6[range] ?? range;
  // ipaddr.js calls anything it has no name for 'unicast', including unassigned space such as
  // 4000::/2 or the rest of ::/8; only 2000::/3 is global unicast.
  return address.match(GLOBAL_UNICAST_V6) ? undefined : 'reserved';
}

/** The low 32 bits of an IPv6 address as an IPv4 address (NAT64 and IPv4-compatible forms). */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const high = address.parts[6] ?? 0;
  const low = address.parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
