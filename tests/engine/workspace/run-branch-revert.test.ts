import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revertOnRunBranch } from '../../../engine/workspace/run-branch-revert.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `rerun --from` takes the rerun nodes' changes off the run branch, so their next attempts start
 * from a tip without them: each file back to its content before the node's commit, unless a
 * later node changed it since; the nodes upstream keep theirs.
 */
let dir: { dir: string; cleanup: () => void };
const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@dagent.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir.dir, encoding: 'utf8' }).trim();
const commitFiles = (files: Record<string, string>, message: string): string => {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir.dir, path), content);
  git('add', '-A');
  git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
};
const onBranch = (path: string): string => git('show', `dagent/r-1:${path}`);

beforeEach(() => {
  dir = tempDir('dagent-branch-revert-');
  git('init', '-q', '-b', 'main');
  commitFiles({ 'up.txt': 'up before\n', 'digest.txt': 'digest before\n', 'shared.txt': 'shared before\n' }, 'base');
  git('checkout', '-q', '-b', 'dagent/r-1');
});

afterEach(() => dir.cleanup());

describe('taking a node back off the run branch', () => {
  it('puts back the files of the rerun node and keeps the upstream node’s change', async () => {
    commitFiles({ 'up.txt': 'up after\n' }, 'dagent: up');
    const digest = commitFiles({ 'digest.txt': 'digest after\n', 'new.txt': 'made by digest\n' }, 'dagent: digest');

    const made = await revertOnRunBranch(dir.dir, 'r-1', [{ nodeId: 'digest', commit: digest }], 'rerun from digest');

    expect(made).toHaveLength(1);
    expect(onBranch('digest.txt')).toBe('digest before');
    expect(onBranch('up.txt')).toBe('up after');
    expect(() => onBranch('new.txt')).toThrow();
    expect(git('log', '-1', '--format=%s', 'dagent/r-1')).toBe('dagent: take back digest (rerun from digest)');
  });

  it('leaves a file a later node changed since as it is', async () => {
    const digest = commitFiles({ 'shared.txt': 'shared by digest\n' }, 'dagent: digest');
    commitFiles({ 'shared.txt': 'shared by digest\nand by test\n' }, 'dagent: test');

    const made = await revertOnRunBranch(dir.dir, 'r-1', [{ nodeId: 'digest', commit: digest }], 'rerun from digest');

    expect(made).toEqual([]);
    expect(onBranch('shared.txt')).toBe('shared by digest\nand by test');
  });

  it('does nothing for a run without a run branch', async () => {
    git('checkout', '-q', 'main');
    git('branch', '-q', '-D', 'dagent/r-1');
    expect(await revertOnRunBranch(dir.dir, 'r-1', [{ nodeId: 'digest', commit: git('rev-parse', 'HEAD') }], 'rerun')).toEqual([]);
  });
});
