import { EmailChannel, digestBody, sendDigest } from '../src/index.js';
import { equal, test } from './harness.js';

const items = Array.from({ length: 7 }, (_, index) => ({ title: `Item ${index + 1}`, url: `https://example.com/${index + 1}` }));

test('digest: lists five items and counts the rest', () => {
  const body = digestBody(items).split('\n');
  equal(body.length, 6, 'lines');
  equal(body[5], '… and 2 more', 'last line');
});

test('digest: sendDigest() sends one e-mail, nothing on an empty day', () => {
  const email = new EmailChannel();
  equal(sendDigest(email, 'ada@example.com', [])?.accepted, undefined, 'empty day');
  equal(sendDigest(email, 'ada@example.com', items)?.accepted, true, 'sent');
  equal(email.outbox[0]?.subject, 'Your daily digest (7)', 'subject');
});
