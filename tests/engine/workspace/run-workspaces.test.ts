import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunWorkspaces } from '../../../engine/workspace/index.js';
import { runGit, type GitRunner } from '../../../engine/snapshots/file-git.js';
import { tempDir } from '../../helpers/temp-store.js';
import { until } from '../../helpers/wait-until.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();
}

function repository(files: Record<string, string>): string {
  const folder = tempDir('dagent-isolation-');
  cleanups.push(folder.cleanup);
  const put = (path: string, content: string): void => {
    mkdirSync(dirname(join(folder.dir, path)), { recursive: true });
    writeFileSync(join(folder.dir, path), content);
  };
  for (const [path, content] of Object.entries(files)) put(path, content);
  git(folder.dir, 'init', '-q', '-b', 'main');
  git(folder.dir, 'add', '-A');
  git(folder.dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'initial');
  // What the CLI writes when it opens a workspace's store.
  put('.dagent/.gitignore', '*\n');
  return folder.dir;
}

/** A git runner that counts the worktrees it adds. */
function countingWorktrees(): { counted: GitRunner; worktreesAdded: () => number } {
  let added = 0;
  const counted: GitRunner = (args, options) => {
    if (args.includes('worktree') && args.includes('add')) added += 1;
    return runGit(args, options);
  };
  return { counted, worktreesAdded: () => added };
}

const TEN_LINES = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

describe('node workspaces on a run branch', () => {
  it("gives each node its own copy: one node's undeclared files are its own commit, never another's", async () => {
    const repo = repository({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-1' });
    const [a, c] = await Promise.all([workspaces.openNode('cmd-a'), workspaces.openNode('cmd-c')]);
    writeFileSync(join(a.path, 'a.txt'), 'a\nchanged\n');
    writeFileSync(join(a.path, 'made.txt'), 'new\n');
    writeFileSync(join(c.path, 'b.txt'), 'b\nby c\n');
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('a\n');
    const commitA = await a.commit('cmd-a');
    const commitC = await c.commit('cmd-c');
    expect(commitA?.files).toEqual(['a.txt', 'made.txt']);
    expect(commitC?.files).toEqual(['b.txt']);
    expect(await workspaces.merge(commitA!, 'node cmd-a')).toMatchObject({ status: 'merged', files: ['a.txt', 'made.txt'] });
    expect(await workspaces.merge(commitC!, 'node cmd-c')).toMatchObject({ status: 'merged', files: ['b.txt'] });
    expect(git(repo, 'log', '--format=%s', 'dagent/r-1')).toBe('node cmd-c\nnode cmd-a\ninitial');
    expect(git(repo, 'show', '--name-only', '--format=', 'dagent/r-1')).toBe('b.txt');
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('merges edits of different hunks of one file, and fails the same lines with both sides', async () => {
    const repo = repository({ 'f.txt': TEN_LINES });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-2' });
    const [top, bottom, clash] = await Promise.all([workspaces.openNode('top'), workspaces.openNode('bottom'), workspaces.openNode('clash')]);
    writeFileSync(join(top.path, 'f.txt'), TEN_LINES.replace('line 1\n', 'line one\n'));
    writeFileSync(join(bottom.path, 'f.txt'), TEN_LINES.replace('line 10\n', 'line ten\n'));
    writeFileSync(join(clash.path, 'f.txt'), TEN_LINES.replace('line 1\n', 'LINE 1\n'));
    expect((await workspaces.merge((await top.commit('top'))!, 'top')).status).toBe('merged');
    expect((await workspaces.merge((await bottom.commit('bottom'))!, 'bottom')).status).toBe('merged');
    expect(git(repo, 'show', 'dagent/r-2:f.txt')).toBe(TEN_LINES.replace('line 1\n', 'line one\n').replace('line 10\n', 'line ten\n').trim());
    const outcome = await workspaces.merge((await clash.commit('clash'))!, 'clash');
    expect(outcome).toEqual({ status: 'conflict', conflicts: [{ path: 'f.txt', hunks: [{ line: 1, ours: 'line one', theirs: 'LINE 1' }] }] });
    expect(git(repo, 'log', '--format=%s', 'dagent/r-2')).toBe('bottom\ntop\ninitial');
    await workspaces.close();
  });

  it("starts from the user's uncommitted changes, committed on HEAD on the run branch, leaving HEAD and the index alone", async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    writeFileSync(join(repo, 'a.txt'), 'a\nmine, not committed\n');
    writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
    const head = git(repo, 'rev-parse', 'HEAD');
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-3' });
    expect(workspaces.baseHoldsUncommitted).toBe(true);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain').split('\n')).toEqual(['M a.txt', '?? notes.txt']);
    const node = await workspaces.openNode('n');
    expect(readFileSync(join(node.path, 'a.txt'), 'utf8')).toBe('a\nmine, not committed\n');
    expect(readFileSync(join(node.path, 'notes.txt'), 'utf8')).toBe('untracked\n');
    await workspaces.close();
  });

  it('links ignored folders in without making them part of the change, and leaves dagent temp files out', async () => {
    const repo = repository({ '.gitignore': 'node_modules/\n', 'index.js': 'x\n' });
    mkdirSync(join(repo, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'module.exports = 1;\n');
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-4' });
    const node = await workspaces.openNode('n');
    expect(lstatSync(join(node.path, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(node.path, 'node_modules', 'lib', 'index.js'), 'utf8')).toContain('module.exports');
    writeFileSync(join(node.path, '.index.js.0a1b2c.dagent-tmp'), 'half');
    expect(await node.commit('n')).toBeUndefined();
    await node.remove();
    // The next node gets the same worktree, without the temporary file.
    const next = await workspaces.openNode('next');
    expect(next.path).toBe(node.path);
    expect(existsSync(join(next.path, '.index.js.0a1b2c.dagent-tmp'))).toBe(false);
    await workspaces.close();
  });

  it('gives a node whose writes reach into node_modules its own writable copy of it; the user\'s stays as it was and others still link it', async () => {
    const repo = repository({ '.gitignore': 'node_modules/\n', 'index.js': 'x\n' });
    mkdirSync(join(repo, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'module.exports = 1;\n');
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-5' });
    const [patcher, reader, everything] = await Promise.all([
      workspaces.openNode('patch-lib', ['node_modules/lib/index.js']),
      workspaces.openNode('read', ['index.js']),
      workspaces.openNode('all', ['**']),
    ]);
    expect(lstatSync(join(patcher.path, 'node_modules')).isDirectory()).toBe(true);
    expect(lstatSync(join(reader.path, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(everything.path, 'node_modules')).isSymbolicLink()).toBe(true);
    const copied = join(patcher.path, 'node_modules', 'lib', 'index.js');
    // A copy, not a hard link: writing the file in place leaves the user's file alone.
    expect(lstatSync(copied).ino).not.toBe(lstatSync(join(repo, 'node_modules', 'lib', 'index.js')).ino);
    appendFileSync(copied, 'module.exports.patched = true;\n');
    expect(readFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(readFileSync(join(reader.path, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    // Still an ignored folder: the copy is no part of the node's change.
    expect(await patcher.commit('patch-lib')).toBeUndefined();
    await workspaces.close();
  });

  it('opens 32 workspaces at once, every one of them', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-5' });
    const opened = await Promise.all(Array.from({ length: 32 }, (_, index) => workspaces.openNode(`n${index}`)));
    expect(opened.filter((node) => existsSync(join(node.path, 'a.txt')))).toHaveLength(32);
    await workspaces.close();
  }, 30_000);

  it("hands a node's worktree on to the next node with none of its files: tracked, untracked or ignored", async () => {
    const repo = repository({ '.gitignore': 'node_modules/\nbuild/\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
    mkdirSync(join(repo, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'module.exports = 1;\n');
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-6' });
    const failed = await workspaces.openNode('failed');
    writeFileSync(join(failed.path, 'a.txt'), 'a\nby the failed node\n');
    writeFileSync(join(failed.path, 'notes.txt'), 'left by the failed node\n');
    mkdirSync(join(failed.path, 'build'));
    writeFileSync(join(failed.path, 'build', 'out.js'), 'built by the failed node\n');
    git(failed.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-am', 'a commit of its own');
    // Staged, never committed: in the worktree's index, not in any commit.
    writeFileSync(join(failed.path, 'staged.txt'), 'staged by the failed node\n');
    git(failed.path, 'add', 'staged.txt');
    await failed.remove();

    const next = await workspaces.openNode('next');
    // The same worktree, where it was: no new one was added, none moved.
    expect(next.path).toBe(failed.path);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(2);
    expect(git(next.path, 'rev-parse', 'HEAD')).toBe(await workspaces.head());
    expect(readFileSync(join(next.path, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(next.path, 'notes.txt'))).toBe(false);
    expect(existsSync(join(next.path, 'staged.txt'))).toBe(false);
    expect(existsSync(join(next.path, 'build'))).toBe(false);
    // Only the linked dependency folder, as in a fresh worktree.
    expect(git(next.path, 'status', '--porcelain', '--ignored').split('\n').filter((line) => !line.endsWith(' node_modules'))).toEqual([]);
    expect(readFileSync(join(next.path, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    writeFileSync(join(next.path, 'b.txt'), 'b\nby next\n');
    const committed = await next.commit('next');
    expect(committed?.files).toEqual(['b.txt']);
    expect(await workspaces.merge(committed!, 'next')).toMatchObject({ status: 'merged', files: ['b.txt'] });
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('clears a worktree as soon as its node lets go of it (its index checked beside the clean), and hands it on with one checkout', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const running = new Set<string>();
    const overlapped: string[] = [];
    const commands: string[] = [];
    // Each command takes a while, so commands run side by side are seen together.
    const slow: GitRunner = async (args, options) => {
      // The command: the first argument that is not an option (`-C <path>` and `-c <setting>` take a value).
      const name = args.find((arg, index) => !arg.startsWith('-') && args[index - 1] !== '-C' && args[index - 1] !== '-c') ?? '';
      for (const other of running) overlapped.push([other, name].sort().join(' + '));
      running.add(name);
      commands.push(name);
      try {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return await runGit(args, options);
      } finally {
        running.delete(name);
      }
    };
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-turns', git: slow });
    const first = await workspaces.openNode('first');
    writeFileSync(join(first.path, 'left.txt'), 'left by first\n');
    overlapped.length = 0;

    await first.remove();
    // No node has asked for it yet: what the first left goes now.
    await until('the worktree cleared', () => !existsSync(join(first.path, 'left.txt')) && running.size === 0);
    expect(overlapped).toEqual(['clean + ls-files']);
    commands.length = 0;
    const next = await workspaces.openNode('next');

    expect(next.path).toBe(first.path);
    expect(commands).toEqual(['checkout']);
    expect(git(next.path, 'status', '--porcelain', '--ignored')).toBe('');
    await workspaces.close();
  });

  it('hands on a worktree cleared already before one still being cleared', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    let slowClean: string | undefined;
    // The clearing's two commands (its clean and its look at the index) each worktree has seen end.
    const clearingsEnded = new Map<string, number>();
    const slow: GitRunner = async (args, options) => {
      if (args.includes('clean') && args.includes(slowClean ?? '')) await new Promise((resolve) => setTimeout(resolve, 500));
      const output = await runGit(args, options);
      const worktree = args.find((arg) => arg.includes('wt-'));
      if (worktree !== undefined && (args.includes('clean') || args.includes('ls-files'))) clearingsEnded.set(worktree, (clearingsEnded.get(worktree) ?? 0) + 1);
      return output;
    };
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-cleared-first', git: slow });
    const [early, late] = await Promise.all([workspaces.openNode('early'), workspaces.openNode('late')]);
    writeFileSync(join(early.path, 'left.txt'), 'left by early\n');
    await early.remove();
    await until('the early worktree cleared', () => !existsSync(join(early.path, 'left.txt')) && clearingsEnded.get(early.path) === 2);
    slowClean = late.path;

    await late.remove();
    const next = await workspaces.openNode('next');

    expect(next.path).toBe(early.path);
    expect(git(next.path, 'status', '--porcelain', '--ignored')).toBe('');
    await workspaces.close();
  });

  it("gives a reused worktree the run branch's merged results, and a writable dependency copy only to the node whose writes reach into it", async () => {
    const repo = repository({ '.gitignore': 'node_modules/\n', 'a.txt': 'a\n' });
    mkdirSync(join(repo, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'module.exports = 1;\n');
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-7' });
    const patcher = await workspaces.openNode('patch-lib', ['node_modules/lib/**']);
    writeFileSync(join(patcher.path, 'node_modules', 'lib', 'index.js'), 'module.exports = 2;\n');
    writeFileSync(join(patcher.path, 'a.txt'), 'a\npatched\n');
    await workspaces.merge((await patcher.commit('patch-lib'))!, 'patch-lib');
    await patcher.remove();

    const reader = await workspaces.openNode('reader');
    expect(readFileSync(join(reader.path, 'a.txt'), 'utf8')).toBe('a\npatched\n');
    expect(lstatSync(join(reader.path, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(reader.path, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    await reader.remove();

    const again = await workspaces.openNode('patch-again', ['node_modules/lib/**']);
    expect(lstatSync(join(again.path, 'node_modules')).isDirectory()).toBe(true);
    expect(readFileSync(join(again.path, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(readFileSync(join(repo, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    await workspaces.close();
  });

  it('clears git state a node left in its worktree, and makes a fresh worktree when a node has tampered with its .git file', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-8' });
    const merging = await workspaces.openNode('merging');
    writeFileSync(join(merging.path, 'a.txt'), 'a\nmerging\n');
    git(merging.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-am', 'theirs');
    git(merging.path, 'update-ref', 'MERGE_HEAD', 'HEAD');
    await merging.remove();
    const next = await workspaces.openNode('next');
    expect(git(next.path, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(git(next.path, 'rev-parse', '--absolute-git-dir'), 'MERGE_HEAD'))).toBe(false);
    expect(git(next.path, 'reflog', '--format=%s')).not.toContain('theirs');

    writeFileSync(join(next.path, '.git'), 'gitdir: /nowhere\n');
    await next.remove();
    const fresh = await workspaces.openNode('fresh');
    expect(git(fresh.path, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(fresh.path, '.git'), 'utf8')).not.toContain('/nowhere');
    expect(existsSync(next.path)).toBe(false);
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('makes worktrees ahead for a stage of edits: they start without a worktree of their own to add, at the tip as it is by then', async () => {
    const repo = repository({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    const { counted, worktreesAdded } = countingWorktrees();
    // As `dagent run` opens them: the view the first readers share is made, and counts as one.
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-ahead', git: counted, prepareView: true });
    await workspaces.prepare(3);
    const first = await workspaces.openNode('first');
    writeFileSync(join(first.path, 'a.txt'), 'a\nby first\n');
    expect((await workspaces.merge((await first.commit('first'))!, 'first')).status).toBe('merged');
    const added = worktreesAdded();

    const stage = await Promise.all(['e1', 'e2'].map((id) => workspaces.openNode(id)));

    expect(worktreesAdded()).toBe(added);
    expect(added).toBe(3);
    for (const node of stage) {
      expect(readFileSync(join(node.path, 'a.txt'), 'utf8')).toBe('a\nby first\n');
      expect(readFileSync(join(node.path, 'src/b.txt'), 'utf8')).toBe('b\n');
      expect(git(node.path, 'status', '--porcelain', '--ignored')).toBe('');
      expect(git(node.path, 'rev-parse', 'HEAD')).toBe(await workspaces.head());
    }
    expect(new Set([first.path, ...stage.map((node) => node.path)]).size).toBe(3);
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('stops making worktrees ahead once a node had to make its own: the stage is already there', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-late' });

    const [, early] = await Promise.all([workspaces.prepare(10), workspaces.openNode('early')]);

    expect(readFileSync(join(early.path, 'a.txt'), 'utf8')).toBe('a\n');
    // The main working copy, the node's, and at most the one being made when the node asked.
    expect(git(repo, 'worktree', 'list').split('\n').length).toBeLessThanOrEqual(3);
    await workspaces.close();
  });

  it('gives a node that finds none ready the worktree being made, instead of checking out a second one beside it', async () => {
    const repo = repository({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    const { counted, worktreesAdded } = countingWorktrees();
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-first-edit', git: counted });

    // A run whose first node is an edit: the worktree made ahead for it has only just begun.
    void workspaces.prepare(1);
    const first = await workspaces.openNode('first');

    expect(worktreesAdded()).toBe(1);
    expect(readFileSync(join(first.path, 'src/b.txt'), 'utf8')).toBe('b\n');
    expect(git(first.path, 'status', '--porcelain', '--ignored')).toBe('');
    writeFileSync(join(first.path, 'a.txt'), 'a\nby first\n');
    expect(await workspaces.merge((await first.commit('first'))!, 'first')).toMatchObject({ status: 'merged', files: ['a.txt'] });
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('gives an editing node that starts as the run opens the view being made for readers, and a reader after it a view of its own', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const { counted, worktreesAdded } = countingWorktrees();
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-edit-first', git: counted, prepareView: true });

    const edit = await workspaces.openNode('edit');
    expect(worktreesAdded()).toBe(1);
    writeFileSync(join(edit.path, 'a.txt'), 'a\nby edit\n');
    const reader = await workspaces.openReader('read');

    expect(worktreesAdded()).toBe(2);
    expect(reader.path).not.toBe(edit.path);
    expect(readFileSync(join(reader.path, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await workspaces.merge((await edit.commit('edit'))!, 'edit')).toMatchObject({ status: 'merged', files: ['a.txt'] });
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('removes worktrees made ahead that no node took, also while they are still being made', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-unused' });
    void workspaces.prepare(4);
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(existsSync(join(repo, '.dagent', 'worktrees', 'r-unused'))).toBe(false);
  });

  it('opens 32 workspaces at once again from the worktrees the first 32 left', async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-9' });
    const first = await Promise.all(Array.from({ length: 32 }, (_, index) => workspaces.openNode(`n${index}`)));
    first.forEach((node, index) => writeFileSync(join(node.path, `left-${index}.txt`), 'left\n'));
    await Promise.all(first.map((node) => node.remove()));
    const second = await Promise.all(Array.from({ length: 32 }, (_, index) => workspaces.openNode(`m${index}`)));
    expect(new Set(second.map((node) => node.path)).size).toBe(32);
    expect(second.filter((node) => existsSync(join(node.path, 'a.txt')) && !readdirSync(node.path).some((name) => name.startsWith('left-')))).toHaveLength(32);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(33);
    await workspaces.close();
  }, 60_000);

  it('gives the nodes that only read one view of the tip while it stays, and a new one once a merge moves it', async () => {
    const repo = repository({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-views' });
    const [first, second] = await Promise.all([workspaces.openReader('read-a'), workspaces.openReader('read-b')]);
    expect(second.path).toBe(first.path);
    expect(readFileSync(join(first.path, 'a.txt'), 'utf8')).toBe('a\n');
    // A reader has nothing to commit or merge, and its view's index is never written.
    expect(await first.commit('read-a')).toBeUndefined();
    expect(await first.changedFiles()).toEqual([]);

    const edit = await workspaces.openNode('edit');
    writeFileSync(join(edit.path, 'a.txt'), 'a\nedited\n');
    expect((await workspaces.merge((await edit.commit('edit'))!, 'edit')).status).toBe('merged');
    await edit.remove();
    const after = await workspaces.openReader('read-c');

    // The readers that began before the merge still see the files they began with; the next one sees the merge.
    expect(after.path).not.toBe(first.path);
    expect(readFileSync(join(after.path, 'a.txt'), 'utf8')).toBe('a\nedited\n');
    expect(readFileSync(join(second.path, 'a.txt'), 'utf8')).toBe('a\n');
    await Promise.all([first.remove(), second.remove()]);
    // The tip's view stays for the next reader; the old one, read by nobody and behind the tip, goes to the next editing node, reset.
    expect((await workspaces.openReader('read-d')).path).toBe(after.path);
    const next = await workspaces.openNode('next');
    expect(next.path).toBe(first.path);
    expect(readFileSync(join(next.path, 'a.txt'), 'utf8')).toBe('a\nedited\n');
    await workspaces.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it("makes the view readers share while the workspaces open, when asked: a reader's or an editing node's, and nothing left of it when no node used it", async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-prepared', prepareView: true });

    const reader = await workspaces.openReader('read');

    // The view made ahead is the reader's: no second worktree was made for it.
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(2);
    expect(readFileSync(join(reader.path, 'a.txt'), 'utf8')).toBe('a\n');
    await reader.remove();
    await workspaces.close();
    const unread = await RunWorkspaces.open({ repo, runId: 'r-unread', prepareView: true });
    await unread.close();
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(existsSync(unread.folder)).toBe(false);
    // A view nobody reads is an editing node's worktree, when it is ready.
    const editing = await RunWorkspaces.open({ repo, runId: 'r-editing', prepareView: true });
    const reader2 = await editing.openReader('read');
    await reader2.remove();
    const edit = await editing.openNode('edit');
    expect(edit.path).toBe(reader2.path);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(2);
    await editing.close();
  });

  it("hands a view nobody reads on to an editing node with none of the view's files changed", async () => {
    const repo = repository({ 'a.txt': 'a\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-view-reuse' });
    const reader = await workspaces.openReader('read');
    const edit = await workspaces.openNode('edit');
    writeFileSync(join(edit.path, 'a.txt'), 'a\nedited\n');
    await workspaces.merge((await edit.commit('edit'))!, 'edit');
    await Promise.all([reader.remove(), edit.remove()]);

    const next = await workspaces.openNode('next');

    expect(readFileSync(join(next.path, 'a.txt'), 'utf8')).toBe('a\nedited\n');
    expect(git(next.path, 'status', '--porcelain')).toBe('');
    await workspaces.close();
  });

  it("merges the next change onto the branch while the last one still reaches the working copy, and delivers them in merge order", async () => {
    const repo = repository({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const workspaces = await RunWorkspaces.open({ repo, runId: 'r-pipeline' });
    const [first, second] = await Promise.all([workspaces.openNode('first'), workspaces.openNode('second')]);
    writeFileSync(join(first.path, 'a.txt'), 'a\nfirst\n');
    writeFileSync(join(second.path, 'b.txt'), 'b\nsecond\n');
    const [commitFirst, commitSecond] = await Promise.all([first.commit('first'), second.commit('second')]);
    const settled: string[] = [];
    let letFirstSettle!: () => void;
    const firstMayFinish = new Promise<void>((resolve) => (letFirstSettle = resolve));

    const mergingFirst = workspaces.merge(commitFirst!, 'first', async () => {
      settled.push('first began');
      await firstMayFinish;
      settled.push('first done');
    });
    const mergingSecond = workspaces.merge(commitSecond!, 'second', async () => void settled.push('second'));

    // The second change is on the branch while the first is still settling; its own settle waits.
    await expect.poll(() => git(repo, 'log', '--format=%s', 'dagent/r-pipeline'), { timeout: 10_000 }).toBe('second\nfirst\ninitial');
    expect(settled).toEqual(['first began']);
    letFirstSettle();
    expect((await mergingFirst).status).toBe('merged');
    expect((await mergingSecond).status).toBe('merged');
    expect(settled).toEqual(['first began', 'first done', 'second']);
    await workspaces.close();
  });
});
