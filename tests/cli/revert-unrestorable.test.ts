import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, FileSnapshots, createRun, openDatabase } from '../../engine/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A file whose content before the run dagent does not hold (here: it held a token, which the store
 * never keeps) cannot be put back by `revert`, forced or not. The revert says so, does not offer
 * `--force`, and names the git command that can, when the file is committed.
 */

// A fake token in a common shape: the store redacts it from the snapshot it keeps.
const TOKEN = 'ghp_FAKEfakeFAKEfake0123456789abcdefABCD';
const BEFORE = `GITHUB_TOKEN=${TOKEN}\nMODE=dev\n`;
const AFTER = `GITHUB_TOKEN=${TOKEN}\nMODE=prod\n`;

let workspace: string;
let home: string;
let cleanups: (() => void)[];
let runId: string;

const put = (path: string, content: string): void => {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
};
const read = (path: string): string => readFileSync(join(workspace, path), 'utf8');
const cli = (...args: string[]) => runCli(args, { cwd: workspace });
const git = (...args: string[]): string => execFileSync('git', args, { cwd: workspace, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' }).trim();

/** One node changes settings.env (MODE=dev to prod) and src/a.js, as the run controller records it. */
async function recordRun(): Promise<void> {
  const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  runId = (await createRun(store.db, { task: 'Switch to production mode', workspace, mode: 'plan' })).id;
  const log = new EventLog(store.db, runId);
  const snapshots = new FileSnapshots({ db: store.db, runId, workspace, git: false });
  const writes = ['settings.env', 'src/a.js'];
  await log.append({ type: 'node/started', nodeId: 'edit-mode', payload: { attempt: 1 } });
  const boundary = await snapshots.beginNode('edit-mode', writes);
  const scope = snapshots.writeScopeFor('edit-mode', writes);
  for (const [path, content] of [['settings.env', AFTER], ['src/a.js', 'mode("prod");\n']] as const) {
    await scope.beforeWrite(path);
    put(path, content);
  }
  await snapshots.endNode('edit-mode', writes, boundary);
  await log.append({ type: 'node/succeeded', nodeId: 'edit-mode', payload: { result: 'done' } });
  await store.close();
}

beforeEach(() => {
  const made = tempDir('dagent-cli-unrestorable-');
  const homeDir = tempDir('dagent-cli-unrestorable-home-');
  ({ dir: workspace } = made);
  home = homeDir.dir;
  cleanups = [made.cleanup, homeDir.cleanup];
  put('settings.env', BEFORE);
  put('src/a.js', 'mode("dev");\n');
});
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

describe('revert of a file whose content before is not held', () => {
  it('says --force cannot put it back instead of offering it, and status says the file was left as it is', async () => {
    await recordRun();

    const revert = await cli('revert', runId);
    expect(revert.code).toBe(1);
    expect(revert.stdout).toContain('restored  src/a.js');
    expect(revert.stdout).toContain('settings.env  its content before held a secret');
    expect(revert.stdout).toContain(`\`dagent diff ${runId}\` shows the change; settings.env cannot be reverted, even with --force`);
    expect(revert.stdout).not.toContain(`dagent revert ${runId} --force`);
    // Not a git workspace: no git command to offer.
    expect(revert.stdout).not.toContain('git checkout');
    expect(read('settings.env')).toBe(AFTER);

    const status = await cli('status', runId);
    expect(status.stdout).toContain('src/a.js as before the run; settings.env left as it is (`dagent revert` cannot put it back, even with --force)');
    expect(status.stdout).not.toContain('--force` overwrites');
    expect((await cli('log', runId, '--type', 'revert/finished')).stdout).toContain("the run's changes reverted: src/a.js · cannot be put back, left as is: settings.env");
  });

  it('in a git workspace where the file is committed, names the git command that puts it back, and it does', async () => {
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', 'settings.env', 'src/a.js');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'dev settings');
    await recordRun();

    const revert = await cli('revert', runId);
    expect(revert.code).toBe(1);
    expect(revert.stdout).toContain('settings.env cannot be reverted, even with --force');
    expect(revert.stdout).toContain('`git checkout HEAD -- settings.env` puts settings.env back as last committed');

    git('checkout', 'HEAD', '--', 'settings.env');
    expect(read('settings.env')).toBe(BEFORE);
  });

  it('from a folder below the workspace, the git command says where it runs', async () => {
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', 'settings.env', 'src/a.js');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'dev settings');
    await recordRun();

    const revert = await runCli(['revert', runId], { cwd: join(workspace, 'src') });
    expect(revert.stdout).toContain(`\`git -C ${workspace} checkout HEAD -- settings.env\``);
  });
});
