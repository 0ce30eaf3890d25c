import { WebhookChannel } from '../src/index.js';
import { equal, test } from './harness.js';

test('webhook: send() posts https only', () => {
  const hook = new WebhookChannel();
  equal(hook.send({ to: 'https://hooks.example.com/a', subject: 'Deploy', body: 'done' }).accepted, true, 'https accepted');
  equal(hook.send({ to: 'http://hooks.example.com/a', subject: 'Deploy', body: 'done' }).accepted, false, 'http refused');
  equal(hook.posted.length, 1, 'posted');
});
