/**
 * tools/address-guard: which network addresses dagent may connect to on a command's or a tool's
 * behalf (public unicast only), the one resolution it makes of a name, and a lookup pinned to the
 * address that was checked. Shared by web_fetch and the sandbox's allow-list proxy.
 */
export { blockedAddressReason, isIpLiteral } from './address-policy.js';
export { systemHostResolver, type HostResolver } from './host-resolver.js';
export { pinnedLookup } from './pinned-lookup.js';
