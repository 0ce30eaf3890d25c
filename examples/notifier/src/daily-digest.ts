import type { Receipt } from './channel.js';
import type { EmailChannel } from './email-channel.js';

export interface DigestItem {
  readonly title: string;
  readonly url: string;
}

/** Most items one digest lists; the rest are counted in its last line (see docs/digest-format.md). */
export const DIGEST_MAX_ITEMS = 5;

/** The digest's body: one line per item, then how many were left out. */
export function digestBody(items: readonly DigestItem[]): string {
  const shown = items.slice(0, DIGEST_MAX_ITEMS).map((item, index) => `${index + 1}. ${item.title} <${item.url}>`);
  const more = items.length - shown.length;
  return [...shown, ...(more > 0 ? [`… and ${more} more`] : [])].join('\n');
}

/** Sends the daily digest by e-mail; an empty day sends nothing. */
export function sendDigest(email: EmailChannel, to: string, items: readonly DigestItem[]): Receipt | undefined {
  if (items.length === 0) return undefined;
  return email.send({ to, subject: `Your daily digest (${items.length})`, body: digestBody(items) });
}
