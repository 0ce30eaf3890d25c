import './email-channel.test.js';
import './sms-channel.test.js';
import './webhook-channel.test.js';
import './daily-digest.test.js';
import { runAll } from './harness.js';

runAll();
