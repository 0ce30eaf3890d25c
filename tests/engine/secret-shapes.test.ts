import { describe, expect, it } from 'vitest';
import { TextStreamCoalescer } from '../../engine/agent/text-stream-coalescer.js';
import { createSecretRedactor, isSecretName, OversizedValueError, REDACTED, secretsFromConfig, secretsFromEnvironment } from '../../engine/secret-redactor.js';

// Fake credentials in the shapes services issue; none is real.
const FAKE = {
  stripe: 'sk_live_FAKEfakeFAKEfake01234567',
  stripeRestricted: 'rk_live_FAKEfakeFAKEfake01234567',
  awsSecret: 'FAKEfakeFAKEfake0123456789/+abcdefghijkl',
  gitlab: 'glpat-FAKEfakeFAKEfake0123',
  huggingFace: 'hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake01',
  npm: 'npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123',
  githubOAuth: 'gho_FAKEfakeFAKEfake0123456789abcdefABCD',
  githubFineGrained: 'github_pat_11FAKEFAKE0_FAKEfakeFAKEfake0123456789',
  slackUser: 'xoxp-1234567890-FAKEfakeFAKE',
  deepseek: 'sk-0123456789abcdef0123456789abcdef',
  anthropic: 'sk-ant-api03-FAKEfakeFAKEfake0123456789-abcdef_XYZ',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.FAKEsignatureFAKEsignature0123',
  azureKey: 'FAKEfakeFAKEfake0123456789abcdefFAKEfake+/==',
};

const PEM = ['-----BEGIN OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQFAKEFAKEFAKE', 'QyNTUxOQAAACBGQUtFRkFLRUZBS0VGQUtFRkFLRUZBS0VGQUtFRkFLRQAAAJhGQUtF', '-----END OPENSSH PRIVATE KEY-----'].join('\n');

describe('the secret redactor, on the shapes keys come in', () => {
  const provider = 'dsk-configured-FAKE-provider-0123456789';
  const redactor = createSecretRedactor([provider]);

  it.each([
    ['a Stripe secret key', `STRIPE=${FAKE.stripe}`, `STRIPE=${REDACTED}`],
    ['a Stripe restricted key', `key ${FAKE.stripeRestricted} here`, `key ${REDACTED} here`],
    ['an AWS secret access key, by its name', `aws_secret_access_key = ${FAKE.awsSecret}`, `aws_secret_access_key = ${REDACTED}`],
    ['an AWS secret access key in JSON', `{"AwsSecretAccessKey": "${FAKE.awsSecret}"}`, `{"AwsSecretAccessKey": "${REDACTED}"}`],
    ['a GitLab token', `GL=${FAKE.gitlab}`, `GL=${REDACTED}`],
    ['a Hugging Face token', `token ${FAKE.huggingFace}`, `token ${REDACTED}`],
    ['an npm token', `//registry.npmjs.org/:_authToken=${FAKE.npm}`, `//registry.npmjs.org/:_authToken=${REDACTED}`],
    ['a GitHub OAuth token', `(${FAKE.githubOAuth})`, `(${REDACTED})`],
    ['a GitHub fine-grained token', `${FAKE.githubFineGrained}`, REDACTED],
    ['a Slack user token', `"${FAKE.slackUser}"`, `"${REDACTED}"`],
    ['a DeepSeek key', `DEEPSEEK=${FAKE.deepseek}`, `DEEPSEEK=${REDACTED}`],
    ['an Anthropic key', `x-api-key: ${FAKE.anthropic}`, `x-api-key: ${REDACTED}`],
    ['a JWT', `session=${FAKE.jwt}; Path=/`, `session=${REDACTED}; Path=/`],
    ['a password in a postgres URL', 'postgres://app:FAKE-pw-4242@db.internal:5432/app', `postgres://app:${REDACTED}@db.internal:5432/app`],
    ['an Azure connection string', `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${FAKE.azureKey};EndpointSuffix=core`, `DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${REDACTED};EndpointSuffix=core`],
    ['an Azure SAS signature', 'https://x.blob.core.windows.net/c?sv=2022&sig=FAKEfakeFAKEfake0123%2Babc%3D', `https://x.blob.core.windows.net/c?sv=2022&sig=${REDACTED}`],
    ['a password assignment', 'DB_PASSWORD=FAKE-hunter2', `DB_PASSWORD=${REDACTED}`],
    ['a GITHUB_PAT assignment', 'export GITHUB_PAT="FAKE0123456789abcdef"', `export GITHUB_PAT="${REDACTED}"`],
    ['a quoted password field', '{"password": "FAKE-hunter2"}', `{"password": "${REDACTED}"}`],
    ['Basic credentials', `Authorization: Basic ${Buffer.from('user:FAKE-pw').toString('base64')}`, `Authorization: Basic ${REDACTED}`],
    ['a whole PEM key', `key:\n${PEM}\ndone`, `key:\n${REDACTED}\ndone`],
    ['the base64 of the configured key', `KEY_B64=${Buffer.from(provider).toString('base64')}`, `KEY_B64=${REDACTED}`],
    ['the configured key inside a longer base64 text', `blob ${Buffer.from(`prefix:${provider}:suffix`).toString('base64')}`, `blob ${REDACTED}`],
    ['a base64-encoded key of a known shape', `data: ${Buffer.from(`token=${FAKE.gitlab}`).toString('base64')}`, `data: ${REDACTED}`],
  ])('redacts %s', (_name, text, expected) => {
    expect(redactor.redactText(text)).toBe(expected);
    // Stored text is JSON: the same secret inside a JSON string is redacted too.
    expect(redactor.redactText(JSON.stringify({ content: text }))).toBe(JSON.stringify({ content: expected }));
  });

  it.each([
    ['prose about auth', 'Basic configuration is documented; Bearer tokens are described later.'],
    ['code reading a password', 'const password = readPassword(input);'],
    ['a URL without a password', 'https://example.com:8443/path?q=1'],
    ['a commit hash', 'commit 0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c'],
    ['an identifier of base64 letters', 'useTheVeryLongIdentifierNameHere'],
  ])('leaves %s alone', (_name, text) => {
    expect(redactor.redactText(text)).toBe(text);
  });

  it('is idempotent: redacted text stays as it is', () => {
    const once = redactor.redactText(`DB_PASSWORD=FAKE-hunter2 Bearer ${FAKE.jwt} postgres://a:FAKE-pw@h/db`);
    expect(redactor.redactText(once)).toBe(once);
  });
});

describe('secrets collected from the environment', () => {
  it.each(['GITHUB_PAT', 'DB_PASS', 'SMTP_PASSWORD', 'NPM_AUTH_TOKEN', 'MY_APP_SECRET', 'GOOGLE_CREDENTIALS', 'apiKey', 'OPENAI_API_KEY', 'SENTRY_DSN'])('takes %s by its name', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['PATH', 'PWD', 'OLDPWD', 'HOME', 'SSH_AUTH_SOCK', 'PASSWORD_STORE_DIR', 'GITHUB_CLIENT_ID', 'XAUTHORITY', 'KEYMAP'])('leaves %s', (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it('takes a value in a key shape whatever its name, and the values of secret names', () => {
    const secrets = secretsFromEnvironment({ CI_THING: FAKE.gitlab, GITHUB_PAT: 'FAKE-pat-0123456789', DEPLOY_PASS: 'FAKE-pass-0123', EDITOR: 'vim-editor-long' });
    expect(secrets.sort()).toEqual(['FAKE-pass-0123', 'FAKE-pat-0123456789', FAKE.gitlab].sort());
  });
});

describe('secrets collected from the config', () => {
  it("takes an MCP server's header credentials and secret environment values", () => {
    const secrets = secretsFromConfig({
      mcpServers: {
        docs: { headers: { Authorization: 'Bearer FAKE-mcp-token-0123', 'X-Team': 'web' } },
        local: { env: { SERVICE_TOKEN: 'FAKE-service-token-42', LOG_LEVEL: 'debug-verbose' } },
      },
    });
    expect(secrets.sort()).toEqual(['FAKE-mcp-token-0123', 'FAKE-service-token-42']);
  });
});

describe('redaction of large input', () => {
  const redactor = createSecretRedactor(['dsk-configured-FAKE-provider-0123456789']);

  it('handles a 10 MiB base64-looking text without overflowing the stack', () => {
    const text = Buffer.alloc(7.5 * 1024 * 1024, 'FAKE binary 0123456789 ').toString('base64');
    expect(redactor.redactText(text)).toBe(text);
  });

  it('handles 30 MiB of shape starts that never complete, and still finds the secret at the end', () => {
    const text = `${'eyJhb-a://u:pw -----BEGIN RSA PRIVATE KEY-----\n'.repeat(30 * 1024 * 1024 / 48)}. DB_PASSWORD=FAKE-hunter2`;
    expect(redactor.redactText(text).endsWith(`DB_PASSWORD=${REDACTED}`)).toBe(true);
  });

  it('refuses a value over the cap with a clear error instead of storing it', () => {
    expect(() => redactor.redactText('x'.repeat(65 * 1024 * 1024))).toThrow(OversizedValueError);
    expect(() => redactor.redactText('x'.repeat(65 * 1024 * 1024))).toThrow(/larger than the 64 MiB the log accepts/);
  });
});

describe('streamed text', () => {
  /** The events a stream of `pieces` writes, one piece per interval, each redacted as the store does. */
  function streamed(pieces: readonly string[]): string[] {
    let now = 0;
    const coalescer = new TextStreamCoalescer({ intervalMs: 10, now: () => now });
    const redactor = createSecretRedactor();
    const written: string[] = [];
    for (const piece of pieces) {
      now += 20;
      const ready = coalescer.push(piece);
      if (ready !== undefined) written.push(redactor.redactText(ready));
    }
    return written;
  }

  it('never writes part of a PEM private key, however it arrives', () => {
    const text = `Here is the key:\n${PEM}\nKeep it safe. `;
    for (const size of [3, 7, 16, 40]) {
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const written = streamed(pieces).join('');
      expect(written).not.toContain('b3BlbnNzaC1rZXkt');
      expect(written).not.toContain('QyNTUxOQAAACBG');
      expect(written).toContain(REDACTED);
    }
  });

  it('never writes a Bearer or Basic label apart from its value', () => {
    const token = 'FAKEfakeFAKEfake0123456789abcdef';
    const basic = Buffer.from('user:FAKE-pw').toString('base64');
    const written = streamed(['curl -H "Authorization: Bearer ', `${token}" -u x `, `then Basic `, `${basic} done `, 'end ']).join('');
    expect(written).not.toContain(token);
    expect(written).not.toContain(basic);
  });
});
