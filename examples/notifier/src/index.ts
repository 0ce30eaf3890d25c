export type { Channel, Message, Receipt } from './channel.js';
export { EmailChannel } from './email-channel.js';
export { SmsChannel, SMS_MAX_CHARS } from './sms-channel.js';
export { WebhookChannel } from './webhook-channel.js';
export { DIGEST_MAX_ITEMS, digestBody, sendDigest, type DigestItem } from './daily-digest.js';
