import type { Channel, Message, Receipt } from './channel.js';

/** E-mail: accepts any address with an `@`, keeps what it sent in an outbox. */
export class EmailChannel implements Channel {
  readonly name = 'email';
  readonly outbox: Message[] = [];

  send(message: Message): Receipt {
    if (!message.to.includes('@')) return { channel: this.name, to: message.to, accepted: false, reason: 'not an e-mail address' };
    this.outbox.push(message);
    return { channel: this.name, to: message.to, accepted: true };
  }
}
