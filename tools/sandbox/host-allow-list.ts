/**
 * Whether a host may be reached through the sandbox's proxy: an entry is a host name
 * (`registry.npmjs.org`), or `*.example.com` for every subdomain of example.com (not
 * example.com itself). Case-insensitive; a trailing dot is ignored. Pure.
 */
export function isHostAllowed(host: string, allowList: readonly string[]): boolean {
  const name = normalizeHost(host);
  if (name === '') return false;
  return allowList.some((entry) => {
    const pattern = normalizeHost(entry);
    if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === pattern;
  });
}

function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}
