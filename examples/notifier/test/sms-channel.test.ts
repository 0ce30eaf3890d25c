import { SMS_MAX_CHARS, SmsChannel } from '../src/index.js';
import { equal, test } from './harness.js';

test('sms: send() cuts long texts to one SMS', () => {
  const sms = new SmsChannel();
  const receipt = sms.send({ to: '+44 20 7946 0000', subject: 'Build', body: 'x'.repeat(400) });
  equal(receipt.accepted, true, 'accepted');
  equal(sms.sent[0]?.length, SMS_MAX_CHARS, 'text length');
});

test('sms: send() refuses an e-mail address', () => {
  equal(new SmsChannel().send({ to: 'ada@example.com', subject: 'a', body: 'b' }).reason, 'not a phone number', 'reason');
});
