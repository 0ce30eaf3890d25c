import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
