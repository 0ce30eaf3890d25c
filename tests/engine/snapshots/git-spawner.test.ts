import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runGit } from '../../../engine/snapshots/file-git.js';
import { GitSpawner, gitSpawner, startGitSpawner } from '../../../engine/snapshots/git-spawner.js';
import { tempDir } from '../../helpers/temp-store.js';

/** Git commands a run starts go through a small helper process: the same answers as starting them here. */

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repository(): string {
  const folder = tempDir('dagent-git-spawner-');
  cleanups.push(folder.cleanup);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: folder.dir });
  return folder.dir;
}

async function readySpawner(): Promise<GitSpawner> {
  const spawner = new GitSpawner();
  cleanups.push(() => spawner.close());
  await vi.waitFor(() => expect(spawner.ready).toBe(true), { timeout: 10_000 });
  return spawner;
}

describe('the git helper', () => {
  it('gives each command its exit, its exact output and its errors, many at once', async () => {
    const repo = repository();
    const spawner = await readySpawner();
    const bytes = Buffer.from([0, 10, 255, 13, 10, 0, 1]);
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' };

    const hashed = await spawner.run({ args: ['hash-object', '-w', '--stdin'], cwd: repo, env, input: bytes });
    const blob = hashed.stdout.toString('utf8').trim();
    const [read, missing, many] = await Promise.all([
      spawner.run({ args: ['cat-file', 'blob', blob], cwd: repo, env }),
      spawner.run({ args: ['cat-file', 'blob', '0'.repeat(40)], cwd: repo, env }),
      Promise.all(Array.from({ length: 20 }, (_, index) => spawner.run({ args: ['rev-parse', '--verify', '-q', `${blob}^{blob}`], cwd: repo, env: { ...env, N: String(index) } }))),
    ]);

    expect(hashed.code).toBe(0);
    expect(read.stdout).toEqual(bytes);
    expect(missing.code).toBe(128);
    expect(missing.stderr.toString('utf8')).toContain('fatal');
    expect(many.map((answer) => answer.stdout.toString('utf8').trim())).toEqual(Array.from({ length: 20 }, () => blob));
  });

  it('hands a long output over whole', async () => {
    const repo = repository();
    const spawner = await readySpawner();
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 0);
    for (let index = 0; index < big.length; index += 4093) big[index] = index % 251;
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' };
    const blob = (await spawner.run({ args: ['hash-object', '-w', '--stdin'], cwd: repo, env, input: big })).stdout.toString('utf8').trim();

    const [read, small] = await Promise.all([spawner.run({ args: ['cat-file', 'blob', blob], cwd: repo, env }), spawner.run({ args: ['cat-file', '-t', blob], cwd: repo, env })]);

    expect(read.stdout.equals(big)).toBe(true);
    expect(small.stdout.toString('utf8')).toBe('blob\n');
  });

  it('once started for the process, runs what runGit is asked; once it ends, commands start in the process again', async () => {
    const repo = repository();
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    const spawner = startGitSpawner();
    cleanups.push(() => spawner.close());
    await vi.waitFor(() => expect(gitSpawner()).toBe(spawner), { timeout: 10_000 });

    const through = await runGit(['hash-object', 'a.txt'], { cwd: repo });
    const refused = await runGit(['rev-parse', '--verify', 'no-such-ref'], { cwd: repo }).catch((error: Error) => error);
    const allowed = await runGit(['rev-parse', '--verify', '-q', 'no-such-ref'], { cwd: repo, okCodes: [1] });
    spawner.close();
    const after = await runGit(['hash-object', 'a.txt'], { cwd: repo });

    expect(through.toString('utf8').trim()).toBe(execFileSync('git', ['hash-object', 'a.txt'], { cwd: repo, encoding: 'utf8' }).trim());
    expect(String(refused)).toMatch(/git rev-parse failed.*Needed a single revision/);
    expect(allowed.toString('utf8')).toBe('');
    expect(gitSpawner()).toBeUndefined();
    expect(after).toEqual(through);
  });

  it('fails a command it had not answered when it ends', async () => {
    const repo = repository();
    const spawner = await readySpawner();

    // A command that waits for its input, which never comes before the helper ends.
    const open = spawner.run({ args: ['hash-object', '--stdin'], cwd: repo, env: process.env });
    spawner.close();

    await expect(open).rejects.toThrow(/git helper ended/);
    await expect(spawner.run({ args: ['--version'], cwd: repo, env: process.env })).rejects.toThrow(/not running/);
  });
});
