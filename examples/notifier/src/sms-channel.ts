import type { Channel, Message, Receipt } from './channel.js';

/** Longest text one SMS carries. */
export const SMS_MAX_CHARS = 160;

/** SMS: phone numbers only; subject and body go in one text, cut to 160 characters. */
export class SmsChannel implements Channel {
  readonly name = 'sms';
  readonly sent: string[] = [];

  send(message: Message): Receipt {
    if (!/^\+?[0-9 ]{6,}$/.test(message.to)) return { channel: this.name, to: message.to, accepted: false, reason: 'not a phone number' };
    const text = `${message.subject}: ${message.body}`;
    this.sent.push(text.length > SMS_MAX_CHARS ? `${text.slice(0, SMS_MAX_CHARS - 1)}…` : text);
    return { channel: this.name, to: message.to, accepted: true };
  }
}
