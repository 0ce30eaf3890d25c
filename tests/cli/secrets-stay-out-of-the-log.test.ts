import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun, openDatabase } from '../../engine/index.js';
import { REDACTED } from '../../engine/secret-redactor.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Secrets never land in the log: a fake provider key (configured through the environment, as a
 * user would) and a fake key in a common shape reach the agent through a tool's output, a file it
 * edits (so the file snapshot holds it) and a provider error body. Afterwards the database
 * FILE — and its write-ahead log — holds neither, byte for byte.
 */

// Fake values only; the shapes match real keys so the pattern redaction is exercised.
const CONFIGURED_KEY = 'dsk-configured-FAKE-0123456789abcdef';
const SHAPED_KEY = 'ghp_FAKEfakeFAKEfake0123456789abcdefABCD';

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;

beforeEach(() => {
  temp = tempDir('dagent-secrets-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(workspace, 'settings.env'), `DEEPSEEK_API_KEY=${CONFIGURED_KEY}\nGITHUB_TOKEN=${SHAPED_KEY}\nMODE=dev\n`);
});

afterEach(() => temp.cleanup());

function databaseBytes(): Buffer {
  const base = join(workspace, '.dagent', 'dagent.db');
  return Buffer.concat([base, `${base}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

describe('secrets in tool output, snapshots and provider errors', () => {
  it('are redacted before they reach the database file', async () => {
    const script = {
      agents: {
        react: [
          { toolCalls: [{ name: 'read_file', args: { path: 'settings.env' } }] },
          { toolCalls: [{ name: 'edit_file', args: { path: 'settings.env', old_string: 'MODE=dev', new_string: 'MODE=prod' } }] },
          { error: { status: 400, message: `bad request: the key ${CONFIGURED_KEY} (also ${SHAPED_KEY}) is not valid for this model` } },
        ],
      },
    };
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));
    const env = { HOME: home, DEEPSEEK_API_KEY: CONFIGURED_KEY };

    const result = await runCli(['react', 'Switch settings.env to prod', '--model', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto'], { cwd: workspace, env });

    // The run happened: the file was edited, the provider error ended it.
    expect(result.code, result.stderr).toBe(1);
    expect(readFileSync(join(workspace, 'settings.env'), 'utf8')).toContain('MODE=prod');
    const bytes = databaseBytes();
    expect(bytes.includes(Buffer.from(CONFIGURED_KEY))).toBe(false);
    expect(bytes.includes(Buffer.from(SHAPED_KEY))).toBe(false);
    // What was stored in their place says so.
    expect(bytes.includes(Buffer.from(REDACTED))).toBe(true);

    const log = await runCli(['log', '--json', runIdOf(result.stderr)], { cwd: workspace, env });
    expect(log.stdout).toContain(`DEEPSEEK_API_KEY=${REDACTED}`);
    expect(log.stdout).toContain(`the key ${REDACTED} (also ${REDACTED})`);
  });

  it('are redacted from binary snapshot content stored as base64', async () => {
    const store = await openDatabase(join(temp.dir, 'store.db'), { secrets: [CONFIGURED_KEY] });
    const environ = Buffer.concat([Buffer.from(`HOME=/root\0DEEPSEEK_API_KEY=${CONFIGURED_KEY}\0TOKEN=${SHAPED_KEY}\0`), Buffer.from([0xff, 0x00, 0xfe])]);
    const run = await createRun(store.db, { task: 'read the environment', workspace, mode: 'plan' });
    await store.db
      .insertInto('file_snapshots')
      .values({ run_id: run.id, node_id: 'n', path: 'environ', content_before: environ.toString('base64'), hash_before: 'h', content_after: null, hash_after: null, encoding: 'base64', created_at: new Date().toISOString() })
      .execute();
    const row = await store.db.selectFrom('file_snapshots').select('content_before').executeTakeFirstOrThrow();
    await store.close();

    const stored = Buffer.from(row.content_before!, 'base64');
    expect(stored.includes(Buffer.from(CONFIGURED_KEY))).toBe(false);
    expect(stored.includes(Buffer.from(SHAPED_KEY))).toBe(false);
    expect(stored.includes(Buffer.from('HOME=/root\0'))).toBe(true);
    expect([...stored.subarray(-3)]).toEqual([0xff, 0x00, 0xfe]);
    expect(readFileSync(join(temp.dir, 'store.db')).includes(Buffer.from(CONFIGURED_KEY))).toBe(false);
  });

  it('are redacted from a 10 MiB base64-looking snapshot, which is stored (no stack overflow)', async () => {
    const store = await openDatabase(join(temp.dir, 'store.db'), { secrets: [CONFIGURED_KEY] });
    const content = Buffer.concat([Buffer.alloc(10 * 1024 * 1024, 'QUJD'), Buffer.from(`\nTOKEN=${SHAPED_KEY}\n`)]);
    const run = await createRun(store.db, { task: 'write a big file', workspace, mode: 'plan' });
    await store.db
      .insertInto('file_snapshots')
      .values({ run_id: run.id, node_id: 'n', path: 'big.txt', content_before: content.toString('base64'), hash_before: 'h', content_after: null, hash_after: null, encoding: 'base64', created_at: new Date().toISOString() })
      .execute();
    const row = await store.db.selectFrom('file_snapshots').select('content_before').executeTakeFirstOrThrow();
    await store.close();
    const stored = Buffer.from(row.content_before!, 'base64');
    expect(stored.length).toBeGreaterThan(10 * 1024 * 1024);
    expect(stored.includes(Buffer.from(SHAPED_KEY))).toBe(false);
  });
});

function runIdOf(stderr: string): string {
  const match = /^run (\S+)/m.exec(stderr);
  if (match === null) throw new Error(`no run id in: ${stderr}`);
  return match[1]!;
}
