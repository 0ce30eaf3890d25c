import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CliContext } from '../../../cli/context/cli-context.js';
import type { CliIo } from '../../../cli/context/cli-io.js';
import { runNodeFiles } from '../../../cli/running/node-files.js';
import { createRun } from '../../../engine/index.js';
import { tempDir } from '../../helpers/temp-store.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A git repository with one commit, and a CLI context in it (HOME a temp folder); `config`: its `.dagent/config.json`. */
function repositoryContext(config?: Record<string, unknown>): CliContext {
  const folder = tempDir('dagent-node-files-');
  cleanups.push(folder.cleanup);
  const workspace = join(folder.dir, 'repo');
  const home = join(folder.dir, 'home');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(workspace, 'a.txt'), 'a\n');
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
  if (config !== undefined) writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify(config));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace, env });
  execFileSync('git', ['add', '-A'], { cwd: workspace, env });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'initial'], { cwd: workspace, env });
  const io: CliIo = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: { HOME: home }, cwd: workspace, interrupt: new AbortController().signal };
  const context = new CliContext(io, {});
  cleanups.push(() => context.close());
  return context;
}

async function nodeFilesOf(context: CliContext, workers: boolean): Promise<Awaited<ReturnType<typeof runNodeFiles>>> {
  const { db } = await context.store();
  const run = await createRun(db, { task: 't', workspace: context.workspace, mode: 'plan' });
  const chosen = await runNodeFiles(context, run, { workers });
  cleanups.push(() => chosen.files.close?.());
  return chosen;
}

describe('how a run in a git repository gets its nodes\u2019 files', () => {
  it('runs nodes on workers shared with no isolation note when the user set no isolation', async () => {
    const context = repositoryContext();
    const onWorkers = await nodeFilesOf(context, true);
    expect(onWorkers.isolation.mode).toBe('shared');
    expect(onWorkers.notice).toBeUndefined();
    // Without --workers, the same repository gives each node its own worktree.
    expect((await nodeFilesOf(context, false)).isolation.mode).toBe('worktree');
  });

  it('says in one line that nodes on workers share the working copy when the repository set isolation: worktree', async () => {
    const context = repositoryContext({ isolation: 'worktree' });
    const onWorkers = await nodeFilesOf(context, true);
    expect(onWorkers.isolation.mode).toBe('shared');
    expect(onWorkers.notice).toContain('worktrees are made only for runs without --workers');
  });

  it('says once that commands on workers are not watched outside their writes in a folder without git, and what fixes it', async () => {
    const folder = tempDir('dagent-node-files-nogit-');
    cleanups.push(folder.cleanup);
    mkdirSync(join(folder.dir, 'home'));
    mkdirSync(join(folder.dir, 'work'));
    const io: CliIo = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: { HOME: join(folder.dir, 'home') }, cwd: join(folder.dir, 'work'), interrupt: new AbortController().signal };
    const context = new CliContext(io, {});
    cleanups.push(() => context.close());

    expect((await nodeFilesOf(context, true)).notice).toContain("is not a git repository, so what the nodes' commands change outside their declared writes on workers is not recorded");
    expect((await nodeFilesOf(context, true)).notice).toContain('`git init` in the workspace before the run records it');
    // In one process, the run sees it: no such line.
    expect((await nodeFilesOf(context, false)).notice).toBeUndefined();
  });
});
