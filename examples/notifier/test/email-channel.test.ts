import { EmailChannel } from '../src/index.js';
import { equal, test } from './harness.js';

test('email: send() accepts an address and keeps the message', () => {
  const email = new EmailChannel();
  equal(email.send({ to: 'ada@example.com', subject: 'Hi', body: 'Hello' }), { channel: 'email', to: 'ada@example.com', accepted: true });
  equal(email.outbox.length, 1, 'outbox size');
});

test('email: send() refuses what is not an address', () => {
  const receipt = new EmailChannel().send({ to: 'ada', subject: 'Hi', body: 'Hello' });
  equal(receipt.accepted, false, 'accepted');
});
