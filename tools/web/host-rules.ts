/** Hosts the user allows or denies for web_fetch (`example.com`, or `*.example.com` for its subdomains). */
export interface HostRules {
  /** When non-empty, only these hosts may be fetched. */
  readonly allowedHosts?: readonly string[];
  /** Never fetched; wins over `allowedHosts`. */
  readonly deniedHosts?: readonly string[];
}

/** Names that always mean this machine or its local network, whatever a resolver says (RFC 6761, RFC 6762). */
const LOCAL_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa'];

/** Why `hostname` may not be fetched under `rules`, or undefined. Pure; names compare case-insensitively without a trailing dot. */
export function hostRuleViolation(hostname: string, rules: HostRules): string | undefined {
  const host = normalizeHost(hostname);
  if (LOCAL_NAME_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return `${host} names a local machine`;
  if ((rules.deniedHosts ?? []).some((pattern) => matchesHost(host, pattern))) return `${host} is in the denied hosts (web.deniedHosts)`;
  const allowed = rules.allowedHosts ?? [];
  if (allowed.length > 0 && !allowed.some((pattern) => matchesHost(host, pattern))) {
    return `${host} is not in the allowed hosts (web.allowedHosts: ${allowed.join(', ')})`;
  }
  return undefined;
}

function matchesHost(host: string, pattern: string): boolean {
  const normalized = normalizeHost(pattern);
  if (normalized.startsWith('*.')) return host.endsWith(normalized.slice(1));
  return host === normalized;
}

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}
