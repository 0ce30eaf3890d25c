import type { Channel, Message, Receipt } from './channel.js';

/** A webhook: posts each message as JSON to an https URL (recorded here; delivery is another service's job). */
export class WebhookChannel implements Channel {
  readonly name = 'webhook';
  readonly posted: { url: string; json: string }[] = [];

  send(message: Message): Receipt {
    if (!message.to.startsWith('https://')) return { channel: this.name, to: message.to, accepted: false, reason: 'webhooks must use https' };
    this.posted.push({ url: message.to, json: JSON.stringify({ subject: message.subject, body: message.body }) });
    return { channel: this.name, to: message.to, accepted: true };
  }
}
