import { describe, expect, it } from 'vitest';
import { createRun, EventLog, openDatabase, secretsFromEnvironment, type SessionEvent } from '../../engine/index.js';
import { createSecretRedactor, REDACTED, warmSecretShapes } from '../../engine/secret-redactor.js';

// Fake keys in the shapes providers use; none of them is a real credential.
const FAKE = {
  openai: 'sk-proj-FAKEfakeFAKEfake0123456789abcdef',
  anthropic: 'sk-ant-api03-FAKEfakeFAKEfake0123456789-abcdef_XYZ',
  github: 'ghp_FAKEfakeFAKEfake0123456789abcdefABCD',
  aws: 'AKIAFAKEFAKEFAKE1234',
  slack: 'xoxb-1234567890-FAKEfakeFAKE',
  google: 'AIzaFAKEfakeFAKEfake0123456789abcdefghi',
};

describe('the secret redactor', () => {
  const redactor = createSecretRedactor(['configured-value-4242-abcd']);

  it('redacts the same after its patterns were warmed up', () => {
    const text = `key=${FAKE.openai} and the key is configured-value-4242-abcd`;
    const before = redactor.redactText(text);

    warmSecretShapes();

    expect(redactor.redactText(text)).toBe(before);
    expect(before).toBe(`key=${REDACTED} and the key is ${REDACTED}`);
  });

  it.each([
    ['an OpenAI key', `key=${FAKE.openai} end`, `key=${REDACTED} end`],
    ['an Anthropic key', `x-api-key: ${FAKE.anthropic}`, `x-api-key: ${REDACTED}`],
    ['a GitHub token', `token ${FAKE.github}.`, `token ${REDACTED}.`],
    ['an AWS access key id', `AWS_ACCESS_KEY_ID=${FAKE.aws}`, `AWS_ACCESS_KEY_ID=${REDACTED}`],
    ['a Slack token', `"${FAKE.slack}"`, `"${REDACTED}"`],
    ['the shortest Slack token, alone', 'xoxb-0123456789', REDACTED],
    ['a Google API key', `?key=${FAKE.google}&q=1`, `?key=${REDACTED}&q=1`],
    ['a bearer token (the word stays)', 'Authorization: Bearer abcdefghijklmnop.qrstuvwx==', `Authorization: Bearer ${REDACTED}`],
    ['a configured key value', 'the key is configured-value-4242-abcd!', `the key is ${REDACTED}!`],
    ['a PEM private key, whole', 'a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\nAAAA==\n-----END RSA PRIVATE KEY-----\nb', `a\n${REDACTED}\nb`],
    ['a PEM private key cut off', 'x -----BEGIN PRIVATE KEY-----\\nMIIEfake\\nAAAA', `x ${REDACTED}`],
  ])('redacts %s', (_name, text, expected) => {
    expect(redactor.redactText(text)).toBe(expected);
  });

  it.each([
    ['ordinary prose', 'Rename foo to bar in src/a.ts and run the tests.'],
    ['a short "Bearer" word', 'Bearer of bad news'],
    ['a hash', 'sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0'],
    ['a task-list item', 'sk-1 is a short id'],
  ])('leaves %s alone', (_name, text) => {
    expect(redactor.redactText(text)).toBe(text);
  });

  it('redacts a configured value shorter than any key shape', () => {
    expect(createSecretRedactor(['pw-4242x']).redactText('pw-4242x')).toBe(REDACTED);
  });

  it('redacts inside binary content and keeps every other byte', () => {
    const bytes = Buffer.concat([Buffer.from([0, 0xff, 0xfe]), Buffer.from(`OPENAI_API_KEY=${FAKE.openai}`), Buffer.from([0, 0x80])]);
    const redacted = redactor.redactBytes(bytes);
    expect(redacted.includes(Buffer.from(FAKE.openai))).toBe(false);
    expect([...redacted.subarray(0, 3)]).toEqual([0, 0xff, 0xfe]);
    expect([...redacted.subarray(-2)]).toEqual([0, 0x80]);
  });

  it('takes the values of the secret variables of the environment, not the others', () => {
    const secrets = secretsFromEnvironment({
      OPENAI_API_KEY: 'value-of-openai-key',
      GITHUB_TOKEN: 'value-of-github-token',
      AWS_SECRET_ACCESS_KEY: 'value-of-aws-secret',
      HOME: '/home/someone-long-enough',
      SHORT_TOKEN: 'abc',
    });
    expect(secrets.sort()).toEqual(['value-of-aws-secret', 'value-of-github-token', 'value-of-openai-key']);
  });
});

describe('the live feed of a run', () => {
  it('gets the stored, redacted form of each event: what an append returns and what its listeners (the dashboard) see', async () => {
    const configured = 'configured-value-4242-abcd';
    const store = await openDatabase(':memory:', { secrets: [configured] });
    try {
      const run = await createRun(store.db, { task: 'read the settings', workspace: '/w', mode: 'react' });
      const log = new EventLog(store.db, run.id);
      const heard: SessionEvent[] = [];
      log.onAppend((events) => heard.push(...events));
      const output = (content: string) => ({ type: 'tool/result' as const, nodeId: 'react', payload: { toolCallId: 'c1', name: 'read_file', content, isError: false, meta: { outcome: 'ok' as const, truncated: false, originalLength: content.length } } });

      const one = await log.append(output(`KEY=${configured}`));
      const many = await log.appendMany([output(`token ${FAKE.github}`), output('nothing secret')]);

      expect([one, ...many].map((event) => (event.payload as { content: string }).content)).toEqual([`KEY=${REDACTED}`, `token ${REDACTED}`, 'nothing secret']);
      expect(heard.map((event) => (event.payload as { content: string }).content)).toEqual([`KEY=${REDACTED}`, `token ${REDACTED}`, 'nothing secret']);
      expect(JSON.stringify(heard)).not.toContain(configured);
    } finally {
      await store.close();
    }
  });
});
