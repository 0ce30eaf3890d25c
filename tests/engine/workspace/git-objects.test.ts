import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../../engine/snapshots/file-git.js';
import { GitObjects } from '../../../engine/workspace/git-objects.js';
import { tempDir } from '../../helpers/temp-store.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();
}

describe('a tree read many paths at a time', () => {
  it('gives what reading each path alone gives: bytes, executable and link modes, and null for what the tree lacks', async () => {
    const folder = tempDir('dagent-git-objects-');
    cleanups.push(folder.cleanup);
    const repo = folder.dir;
    mkdirSync(join(repo, 'src', 'deep dir'), { recursive: true });
    writeFileSync(join(repo, 'src', 'plain.txt'), 'one\ntwo\n');
    writeFileSync(join(repo, 'src', 'deep dir', 'with space.txt'), 'spaced\n');
    writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(repo, 'run.sh'), 0o755);
    writeFileSync(join(repo, 'binary.bin'), Buffer.from([0, 10, 255, 10, 10, 0, 13]));
    writeFileSync(join(repo, 'empty.txt'), '');
    symlinkSync('src/plain.txt', join(repo, 'link'));
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'initial');
    const objects = new GitObjects(repo);
    const paths = ['src/plain.txt', 'src/deep dir/with space.txt', 'run.sh', 'binary.bin', 'empty.txt', 'link', 'not/there.txt', 'src'];

    const together = await objects.entriesAt('HEAD', paths);

    for (const path of paths) expect(together.get(path), path).toEqual(await objects.entryAt('HEAD', path));
    expect(together.get('src/plain.txt')).toEqual({ mode: '100644', bytes: Buffer.from('one\ntwo\n') });
    expect(together.get('src/deep dir/with space.txt')?.bytes.toString()).toBe('spaced\n');
    expect(together.get('empty.txt')?.bytes).toEqual(Buffer.alloc(0));
    expect(together.get('run.sh')?.mode).toBe('100755');
    expect(together.get('link')).toEqual({ mode: '120000', bytes: Buffer.from('src/plain.txt') });
    expect(together.get('binary.bin')?.bytes).toEqual(Buffer.from([0, 10, 255, 10, 10, 0, 13]));
    expect(together.get('not/there.txt')).toBeNull();
    // A folder is not a file of the tree.
    expect(together.get('src')).toBeNull();
  });
});

/** Two commits: `before`, then `after` with a file changed, one made executable, a link moved, a file gone, a file become a folder and a folder a file, new nested files, a submodule added. */
function twoCommits(): { repo: string; before: string; after: string } {
  const folder = tempDir('dagent-git-objects-');
  cleanups.push(folder.cleanup);
  const repo = folder.dir;
  const commit = (message: string, stage = true): string => {
    if (stage) git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
    return git(repo, 'rev-parse', 'HEAD');
  };
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  mkdirSync(join(repo, 'doc'));
  writeFileSync(join(repo, 'src', 'same.ts'), 'same\n');
  writeFileSync(join(repo, 'src', 'deep', 'b.ts'), 'b\n');
  writeFileSync(join(repo, 'run.sh'), 'echo\n');
  writeFileSync(join(repo, 'gone.txt'), 'gone\n');
  writeFileSync(join(repo, 'becomes-folder'), 'file\n');
  writeFileSync(join(repo, 'doc', 'x.md'), 'x\n');
  symlinkSync('src/same.ts', join(repo, 'link'));
  git(repo, 'init', '-q', '-b', 'main');
  const before = commit('before');
  writeFileSync(join(repo, 'src', 'deep', 'b.ts'), 'b changed\n');
  chmodSync(join(repo, 'run.sh'), 0o755);
  execFileSync('rm', ['link', 'gone.txt', 'becomes-folder', '-r', 'doc'], { cwd: repo });
  symlinkSync('run.sh', join(repo, 'link'));
  mkdirSync(join(repo, 'becomes-folder'));
  writeFileSync(join(repo, 'becomes-folder', 'inner.txt'), 'inner\n');
  writeFileSync(join(repo, 'doc'), 'now a file\n');
  mkdirSync(join(repo, 'new', 'nested'), { recursive: true });
  writeFileSync(join(repo, 'new', 'nested', 'c.ts'), 'c\n');
  git(repo, 'add', '-A');
  git(repo, 'update-index', '--add', '--cacheinfo', `160000,${before},vendor/sub`);
  const after = commit('after', false);
  return { repo, before, after };
}

describe('objects read by id through one long-lived git cat-file', () => {
  it('lists the paths two commits differ in as git diff-tree does, and reads their files as ls-tree and cat-file do', async () => {
    const { repo, before, after } = twoCommits();
    const batch = new GitObjects(repo);
    cleanups.push(() => batch.close());
    // Any runner but the real one's own function: every read is a command of its own.
    const commands = new GitObjects(repo, (args, options) => runGit(args, options));
    const paths = ['src/same.ts', 'src/deep/b.ts', 'run.sh', 'link', 'gone.txt', 'becomes-folder', 'becomes-folder/inner.txt', 'doc', 'doc/x.md', 'new/nested/c.ts', 'vendor/sub', 'src', 'src/deep/b.ts/x'];

    const changed = await batch.changedPaths(before, after);

    expect(changed).toEqual(['becomes-folder', 'becomes-folder/inner.txt', 'doc', 'doc/x.md', 'gone.txt', 'link', 'new/nested/c.ts', 'run.sh', 'src/deep/b.ts', 'vendor/sub']);
    expect(changed).toEqual(await commands.changedPaths(before, after));
    expect(await batch.changedPaths(after, before)).toEqual(changed);
    expect(await batch.treeOf(after)).toBe(git(repo, 'rev-parse', 'HEAD^{tree}'));
    for (const commit of [before, after]) expect(await batch.entriesAt(commit, paths)).toEqual(await commands.entriesAt(commit, paths));
    expect((await batch.entriesAt(after, ['run.sh'])).get('run.sh')).toEqual({ mode: '100755', bytes: Buffer.from('echo\n') });
  });

  it('writes a commit git reads back whole: tree, parent, author, message', async () => {
    const { repo, before, after } = twoCommits();
    const objects = new GitObjects(repo);
    cleanups.push(() => objects.close());
    const tree = await objects.treeOf(after);

    const commit = await objects.commitTree(tree, [before], 'dagent: edit (attempt 1): the change');

    expect(git(repo, 'cat-file', '-t', commit)).toBe('commit');
    expect(git(repo, 'log', '-1', '--format=%T %P%n%an <%ae>%n%B', commit)).toBe(`${tree} ${before}\ndagent <dagent@localhost>\ndagent: edit (attempt 1): the change`);
    expect(git(repo, 'diff-tree', '-r', '--name-only', '--no-renames', before, commit).split('\n')).toEqual(await objects.changedPaths(before, commit));
    expect(() => git(repo, 'fsck', '--strict', '--no-dangling')).not.toThrow();
  });
});

describe('refs moved through one long-lived git update-ref', () => {
  it('moves a ref only from where the caller expects it, says why when git refuses, and goes on after a refusal', async () => {
    const { repo, before, after } = twoCommits();
    const objects = new GitObjects(repo);
    cleanups.push(() => objects.close());

    await objects.moveRef('refs/heads/dagent/r-1', before, undefined);
    const exists = await objects.moveRef('refs/heads/dagent/r-1', after, undefined).catch((error: Error) => error);
    const moved = await objects.moveRef('refs/heads/dagent/r-1', after, after).catch((error: Error) => error);
    await objects.moveRef('refs/heads/dagent/r-1', after, before);
    await Promise.all([objects.moveRef('refs/dagent/r-1/steps/a', before, 'anywhere'), objects.moveRef('refs/dagent/r-1/steps/a', after, 'anywhere')]);

    expect(String(exists)).toMatch(/refs\/heads\/dagent\/r-1.*already exists/);
    expect(String(moved)).toMatch(new RegExp(`is at ${before} but expected ${after}`));
    expect(git(repo, 'rev-parse', 'refs/heads/dagent/r-1')).toBe(after);
    expect(git(repo, 'rev-parse', 'refs/dagent/r-1/steps/a')).toBe(after);
    expect(git(repo, 'reflog', 'show', '--format=%gs', 'refs/heads/dagent/r-1').split('\n')).toEqual(['dagent', 'dagent']);
  });
});

describe('a SHA-256 repository', () => {
  it('reads trees, commits through git and moves refs there too', async () => {
    const folder = tempDir('dagent-git-objects-');
    cleanups.push(folder.cleanup);
    const repo = folder.dir;
    git(repo, 'init', '-q', '--object-format=sha256', '-b', 'main');
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'a.ts'), 'a\n');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'before');
    const before = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'src', 'a.ts'), 'a changed\n');
    writeFileSync(join(repo, 'b.ts'), 'b\n');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'after');
    const after = git(repo, 'rev-parse', 'HEAD');
    const objects = new GitObjects(repo);
    cleanups.push(() => objects.close());

    const changed = await objects.changedPaths(before, after);
    const commit = await objects.commitTree(await objects.treeOf(after), [before], 'dagent: n');
    await objects.moveRef('refs/heads/dagent/r-1', commit, undefined);

    expect(before).toHaveLength(64);
    expect(changed).toEqual(['b.ts', 'src/a.ts']);
    expect((await objects.entriesAt(after, ['src/a.ts'])).get('src/a.ts')?.bytes.toString()).toBe('a changed\n');
    expect(git(repo, 'log', '-1', '--format=%an %s', 'dagent/r-1')).toBe('dagent dagent: n');
  });
});

/** A repository with a `base` commit, and two lines of work from it (`ours`, `theirs`) made by `change` callbacks. */
function forked(files: Record<string, string>, ours: (repo: string) => void, theirs: (repo: string) => void): { repo: string; base: string; ours: string; theirs: string } {
  const folder = tempDir('dagent-git-merge-');
  cleanups.push(folder.cleanup);
  const repo = folder.dir;
  git(repo, 'init', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const commit = (message: string): string => {
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', message);
    return git(repo, 'rev-parse', 'HEAD');
  };
  const base = commit('base');
  ours(repo);
  const oursCommit = commit('ours');
  git(repo, 'checkout', '-q', '--detach', base);
  git(repo, 'clean', '-q', '-ffdx');
  theirs(repo);
  const theirsCommit = commit('theirs');
  return { repo, base, ours: oursCommit, theirs: theirsCommit };
}

/** What `git merge-tree` makes of the two lines: its tree, and the paths it says conflict. */
function gitMerge(repo: string, ours: string, theirs: string): { tree: string; conflicted: string[] } {
  let output: string;
  try {
    output = git(repo, 'merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs);
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? '').trim();
  }
  const [tree = '', ...conflicted] = output.split('\n').filter((line) => line !== '');
  return { tree, conflicted: [...new Set(conflicted)] };
}

const BASE_FILES = {
  'a.txt': 'a\n',
  'run.sh': '#!/bin/sh\n',
  'src/x.ts': 'export const x = 1;\n',
  'src/deep/y.ts': 'export const y = 1;\n',
  'docs/readme.md': '# readme\n',
  'gone/only.txt': 'only\n',
  'shared.txt': 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n',
};

describe('merging two lines of work', () => {
  it('merges changes to different files without git, into the tree git merges them to', async () => {
    const { repo, base, ours, theirs } = forked(
      BASE_FILES,
      (repo) => {
        writeFileSync(join(repo, 'a.txt'), 'a, ours\n');
        writeFileSync(join(repo, 'src', 'new.ts'), 'export const fresh = 1;\n');
        execFileSync('rm', ['-r', join(repo, 'docs')]);
        chmodSync(join(repo, 'run.sh'), 0o755);
      },
      (repo) => {
        writeFileSync(join(repo, 'src', 'deep', 'y.ts'), 'export const y = 2;\n');
        mkdirSync(join(repo, 'newdir', 'nested'), { recursive: true });
        writeFileSync(join(repo, 'newdir', 'nested', 'z.ts'), 'export const z = 1;\n');
        execFileSync('rm', ['-r', join(repo, 'gone')]);
        writeFileSync(join(repo, 'src', 'another.ts'), 'export const another = 1;\n');
        symlinkSync('a.txt', join(repo, 'link'));
      },
    );
    const objects = new GitObjects(repo);
    cleanups.push(() => objects.close());

    const [baseTree, oursTree, theirsTree] = await Promise.all([base, ours, theirs].map((commit) => objects.treeOf(commit)));
    const here = await objects.mergeTrees(baseTree!, oursTree!, theirsTree!);

    expect(here).toBe(gitMerge(repo, ours, theirs).tree);
    expect(git(repo, 'cat-file', '-t', here!)).toBe('tree');
    expect(git(repo, 'ls-tree', '-r', '--name-only', here!).split('\n')).toEqual(['a.txt', 'link', 'newdir/nested/z.ts', 'run.sh', 'shared.txt', 'src/another.ts', 'src/deep/y.ts', 'src/new.ts', 'src/x.ts']);
    expect(git(repo, 'ls-tree', here!, 'run.sh')).toMatch(/^100755 /);
    expect(await objects.mergeCommits(base, ours, theirs)).toEqual({ tree: here, conflicted: [] });
  });

  it('leaves a file changed on both sides to git: different lines merge, the same lines conflict', async () => {
    const apart = forked(BASE_FILES, (repo) => writeFileSync(join(repo, 'shared.txt'), 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n'), (repo) => writeFileSync(join(repo, 'shared.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n'));
    const clash = forked(BASE_FILES, (repo) => writeFileSync(join(repo, 'shared.txt'), 'ours\n'), (repo) => writeFileSync(join(repo, 'shared.txt'), 'theirs\n'));

    for (const { repo, base, ours, theirs } of [apart, clash]) {
      const objects = new GitObjects(repo);
      cleanups.push(() => objects.close());
      const [baseTree, oursTree, theirsTree] = await Promise.all([base, ours, theirs].map((commit) => objects.treeOf(commit)));
      expect(await objects.mergeTrees(baseTree!, oursTree!, theirsTree!)).toBeUndefined();
      expect(await objects.mergeCommits(base, ours, theirs)).toEqual(gitMerge(repo, ours, theirs));
    }
    const clashObjects = new GitObjects(clash.repo);
    cleanups.push(() => clashObjects.close());
    expect((await clashObjects.mergeCommits(clash.base, clash.ours, clash.theirs)).conflicted).toEqual(['shared.txt']);
  });

  it('leaves a folder one side renamed and the other added to to git, which follows the rename', async () => {
    const { repo, base, ours, theirs } = forked(
      { 'lib/one.ts': 'export const one = 1;\n', 'lib/two.ts': 'export const two = 2;\n' },
      (repo) => execFileSync('mv', [join(repo, 'lib'), join(repo, 'core')]),
      (repo) => writeFileSync(join(repo, 'lib', 'three.ts'), 'export const three = 3;\n'),
    );
    const objects = new GitObjects(repo);
    cleanups.push(() => objects.close());

    const [baseTree, oursTree, theirsTree] = await Promise.all([base, ours, theirs].map((commit) => objects.treeOf(commit)));

    expect(await objects.mergeTrees(baseTree!, oursTree!, theirsTree!)).toBeUndefined();
    const merged = await objects.mergeCommits(base, ours, theirs);
    expect(merged).toEqual(gitMerge(repo, ours, theirs));
    expect(git(repo, 'ls-tree', '-r', '--name-only', merged.tree).split('\n')).toContain('core/three.ts');
  });
});
