import ipaddr from 'ipaddr.js';

/** Plain-language names of the ipaddr.js ranges a fetch may never reach. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (cloud metadata lives there)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private network address',
  uniqueLocal: 'a unique-local address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  discard: 'a discard-only address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  as112v6: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a reserved address',
};

const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');

/** True when `text` is an IP address in any notation ipaddr.js reads (dotted, decimal, hex, octal, short, IPv6). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(stripBrackets(text));
}

/**
 * Why a fetch may not connect to `address`, or undefined when it may. Only public unicast
 * addresses pass: every special-purpose range (private, loopback, link-local, CGNAT, multicast,
 * unspecified, IPv4-mapped, NAT64, 6to4, Teredo, documentation, ...) is refused, so an embedded
 * IPv4 address can never smuggle a private target through an IPv6 form. Pure.
 */
export function blockedAddressReason(address: string): string | undefined {
  const bare = stripBrackets(address);
  if (!ipaddr.isValid(bare)) return `"${address}" is not an IP address`;
  const parsed = ipaddr.parse(bare);
  const range = parsed.range();
  // IPv6 outside 2000::/3 (IPv4-compatible ::a.b.c.d among them) is not on the public internet.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_IPV6)) return `${parsed.toString()} is outside the global unicast IPv6 space`;
  if (range === 'unicast') return undefined;
  return `${parsed.toString()} is ${RANGE_NAMES[range] ?? `a special-purpose address (${range})`}`;
}

function stripBrackets(text: string): string {
  return text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
}
