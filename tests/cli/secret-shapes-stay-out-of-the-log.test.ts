import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A workspace `.env` holding credentials in every common shape is read by the agent; the database
 * file afterwards holds none of them. The environment's secrets whose names are not `*_API_KEY`-like
 * (`GITHUB_PAT`, `DEPLOY_PASS`) are collected too. A plan document too large to be one is bad input.
 */

// Fake values only, in the shapes real credentials have.
const PROVIDER_KEY = 'dsk-configured-FAKE-provider-0123456789';
const FAKE_SECRETS = {
  stripe: 'sk_live_FAKEfakeFAKEfake01234567',
  awsSecret: 'FAKEfakeFAKEfake0123456789/+abcdefghijkl',
  gitlab: 'glpat-FAKEfakeFAKEfake0123',
  huggingFace: 'hf_FAKEfakeFAKEfakeFAKEfakeFAKEfake01',
  npm: 'npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.FAKEsignatureFAKEsignature0123',
  postgresPassword: 'FAKE-pw-4242-db',
  providerBase64: Buffer.from(PROVIDER_KEY).toString('base64'),
  githubPat: 'FAKE-github-pat-0123456789',
  deployPass: 'FAKE-deploy-pass-0123',
};

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;

beforeEach(() => {
  temp = tempDir('dagent-secret-shapes-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home);
});

afterEach(() => temp.cleanup());

function databaseBytes(): Buffer {
  const base = join(workspace, '.dagent', 'dagent.db');
  return Buffer.concat([base, `${base}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

describe('a workspace .env read by the agent', () => {
  it('leaves none of its secrets in the database file', async () => {
    const env = [
      `STRIPE_KEY=${FAKE_SECRETS.stripe}`,
      `aws_secret_access_key = ${FAKE_SECRETS.awsSecret}`,
      `GITLAB=${FAKE_SECRETS.gitlab}`,
      `HF=${FAKE_SECRETS.huggingFace}`,
      `NPM=${FAKE_SECRETS.npm}`,
      `SESSION=${FAKE_SECRETS.jwt}`,
      `DATABASE_URL=postgres://app:${FAKE_SECRETS.postgresPassword}@db.internal:5432/app`,
      `PROVIDER_B64=${FAKE_SECRETS.providerBase64}`,
      `NOTE=the pat is ${FAKE_SECRETS.githubPat} and the pass ${FAKE_SECRETS.deployPass}`,
      'MODE=dev',
    ].join('\n');
    writeFileSync(join(workspace, '.env'), `${env}\n`);
    const script = { agents: { react: [{ toolCalls: [{ name: 'read_file', args: { path: '.env' } }] }, { text: 'Read it.' }] } };
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));
    const processEnv = { HOME: home, DEEPSEEK_API_KEY: PROVIDER_KEY, GITHUB_PAT: FAKE_SECRETS.githubPat, DEPLOY_PASS: FAKE_SECRETS.deployPass };

    const result = await runCli(['react', 'Read .env', '--model', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto'], { cwd: workspace, env: processEnv });

    expect(result.code, result.stderr).toBe(0);
    const bytes = databaseBytes();
    expect(bytes.includes(Buffer.from('MODE=dev'))).toBe(true);
    for (const [name, secret] of Object.entries(FAKE_SECRETS)) expect(bytes.includes(Buffer.from(secret)), name).toBe(false);
  });
});

describe('plan --from a document with a 30 MiB field', () => {
  it('is bad input (exit 2) with a message saying what is too large', async () => {
    const plan = { nodes: [{ id: 'big', task: 'x'.repeat(30 * 1024 * 1024) }] };
    writeFileSync(join(temp.dir, 'plan.json'), JSON.stringify(plan));

    const result = await runCli(['plan', '--from', join(temp.dir, 'plan.json')], { cwd: workspace, env: { HOME: home } });

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/plan file .*plan\.json is 30\.0 MiB, over the 4 MiB a plan document may be/);
  });
});
