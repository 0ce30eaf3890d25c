import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { REPO_ROOT, markedBlock } from '../helpers/markdown-references.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The README's examples, run as written through the `dagent` binary against a copy of
 * examples/billing, with the scripted model of examples/billing.script.json standing in for the
 * paid one. `dagent` is on PATH as it is after `npm install -g .`.
 */
const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'examples', 'billing.script.json');
const HAS_JQ = spawnSync('jq', ['--version']).status === 0;

let root: { dir: string; cleanup: () => void };
let repo: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  root = tempDir('dagent-readme-');
  repo = join(root.dir, 'billing');
  cpSync(join(REPO_ROOT, 'examples', 'billing'), repo, { recursive: true });
  const bin = join(root.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'dagent'), `#!/bin/sh\nexec "${process.execPath}" "${DAGENT_BIN}" "$@"\n`);
  chmodSync(join(bin, 'dagent'), 0o755);
  for (const folder of ['home', 'tmp']) mkdirSync(join(root.dir, folder));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DAGENT_') || name === 'DAGENT_BIN'));
  env = {
    ...inherited,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: join(root.dir, 'home'),
    XDG_CONFIG_HOME: join(root.dir, 'home', '.config'),
    TMPDIR: join(root.dir, 'tmp'),
    NO_COLOR: '1',
    EDITOR: 'true',
    VISUAL: 'true',
  };
  const git = { cwd: repo, env: { ...env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com' } };
  await run('git', ['init', '-q'], git);
  await run('git', ['add', '-A'], git);
  await run('git', ['commit', '-qm', 'billing'], git);
});

afterEach(() => root?.cleanup());

/** Runs `script`; `output` is what the user sees (stdout, then stderr), `stdout` what a pipe reads. */
async function bash(script: string, extraEnv: NodeJS.ProcessEnv = {}, cwd = repo): Promise<{ code: number; output: string; stdout: string }> {
  try {
    const result = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...env, ...extraEnv }, timeout: 150_000 });
    return { code: 0, output: result.stdout + result.stderr, stdout: result.stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, stdout: failed.stdout ?? '' };
  }
}

function source(path: string): string {
  return readFileSync(join(repo, path), 'utf8');
}

describe('the README\'s CI example', () => {
  it.skipIf(!HAS_JQ)('plans, posts the plan, approves and runs the reviewed hash to success', async () => {
    const block = markedBlock('README.md', 'ci-example');
    expect(block).toContain('--approved "$HASH"');

    const result = await bash(block, { DAGENT_MODEL: `scripted:${SCRIPT}` });

    expect(result.code, result.output).toBe(0);
    const reports = readdirSync(join(root.dir, 'tmp')).map((name) => join(root.dir, 'tmp', name)).find((dir) => existsSync(join(dir, 'plan.json')));
    if (reports === undefined) throw new Error('the example wrote no plan.json under TMPDIR');
    expect(readFileSync(join(reports, 'plan.mmd'), 'utf8')).toMatch(/^flowchart/);
    const events = readFileSync(join(reports, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string });
    expect(events.at(-1)?.type).toBe('run/succeeded');
    expect(readFileSync(join(reports, 'report.md'), 'utf8')).toContain('edit-reminder');
    expect(source('src/models/invoice.js')).toContain('grandTotal()');
    expect(source('src/jobs/reminder.js')).toContain('grandTotal()');
  }, 180_000);

  it.skipIf(!HAS_JQ)('refuses to run a plan that changed after the review', async () => {
    const block = markedBlock('README.md', 'ci-example');
    // Someone changes the plan between the review and the run (a node's title), and it is approved again.
    const tampered = block.replace(
      'dagent approve "$RUN"',
      'dagent export "$RUN" "$out/edited.json" && sed -i \'s/Run the tests/Run every test/\' "$out/edited.json" && dagent import "$RUN" "$out/edited.json" >/dev/null\ndagent approve "$RUN"',
    );

    const result = await bash(tampered, { DAGENT_MODEL: `scripted:${SCRIPT}` });

    expect(result.code).toBe(2);
    expect(result.output).toMatch(/--approved [0-9a-f]+ is plan v1's hash, and the approved plan is v2/);
    expect(source('src/models/invoice.js')).not.toContain('grandTotal()');
  }, 180_000);
});

describe('the README\'s core flow', () => {
  it('plans, shows, edits, approves, runs, diffs and reverts one node, each line as written', async () => {
    const lines = markedBlock('README.md', 'flow-example')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('export ') && !line.startsWith('cd '));
    expect(lines[0]).toMatch(/^dagent plan /);
    let runId = '';
    for (const written of lines) {
      // The paid model becomes the scripted one; the example's run id becomes the one plan printed.
      const line = written.replace('-m deepseek:deepseek-chat', `-m scripted:${SCRIPT}`).replaceAll('r-7f3a', runId);
      const result = await bash(line);
      expect(result.code, `${written}\n${result.output}`).toBe(0);
      if (runId === '') runId = /run (r-[0-9a-f]+)/.exec(result.output)?.[1] ?? '';
      expect(runId, result.output).not.toBe('');
    }

    const status = await bash(`dagent status ${runId} --json`);
    // --json is for pipes: the JSON is stdout's; a notice (a busy store, under load) goes to stderr.
    expect(JSON.parse(status.stdout).run.status, status.output).toBe('succeeded');
    expect(source('src/models/invoice.js')).toContain('grandTotal()');
    // The last line reverted edit-api alone: the API calls total() again, the rest stays renamed.
    expect(source('src/api/invoices.js')).toContain('invoice.total()');
    expect(source('src/render/pdf.js')).toContain('grandTotal()');
  }, 180_000);
});

describe('examples/README.md\'s billing example', () => {
  it('scans, then plans and runs the rename at once on a copy, from the repository\'s root', async () => {
    const block = markedBlock(join('examples', 'README.md'), 'billing-example');

    const result = await bash(block, { PWD: REPO_ROOT }, REPO_ROOT);

    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/src\/jobs\/reminder\.js:\d+/);
    expect(result.output).toMatch(/run r-[0-9a-f]+ succeeded/);
    const copy = readdirSync(join(root.dir, 'tmp')).map((name) => join(root.dir, 'tmp', name, 'billing')).find((dir) => existsSync(dir));
    expect(readFileSync(join(copy!, 'src', 'jobs', 'reminder.js'), 'utf8')).toContain('grandTotal()');
  }, 180_000);
});
