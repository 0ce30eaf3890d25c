import { ToolError } from '../tool-errors/index.js';
import { blockedAddressReason, isIpLiteral } from '../address-guard/index.js';
import { hostRuleViolation, type HostRules } from './host-rules.js';

/** A URL that passed the text checks; `literal` is set when its host is an IP address (nothing to resolve). */
export interface CheckedUrl {
  readonly url: URL;
  readonly literal?: string;
}

/**
 * The checks a URL passes before any resolution: http(s) only, no credentials, and host rules;
 * an IP-literal host (in any notation the URL parser or ipaddr.js reads) is vetted here, since no
 * lookup will see it. Throws a refusal the model reads.
 */
export function checkWebUrl(raw: string, rules: HostRules): CheckedUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refused(`"${shorten(raw)}" is not a valid absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused(`only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username !== '' || url.password !== '') throw refused('URLs with credentials (user:password@) are not fetched');
  const host = url.hostname;
  if (host === '') throw refused('the URL has no host');
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const ruleViolation = hostRuleViolation(bare, rules);
  if (ruleViolation !== undefined) throw refused(ruleViolation);
  if (host.startsWith('[') || isIpLiteral(bare)) {
    const reason = blockedAddressReason(bare);
    if (reason !== undefined) throw refused(reason);
    return { url, literal: bare };
  }
  return { url };
}

export function refused(reason: string): ToolError {
  return new ToolError(`${reason}; web_fetch reaches public internet hosts only`, { outcome: 'refused' });
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
