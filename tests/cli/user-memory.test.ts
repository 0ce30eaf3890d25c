import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Sam remembers a preference with `--scope user` in one project and finds it in the next one:
 * user memories live in the user's folder (HOME points at a temporary one), project memories
 * stay in their workspace.
 */
let dir: string;
let cleanup: () => void;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagent-user-memory-'));
  for (const name of ['home', 'shop', 'blog']) mkdirSync(join(dir, name));
  env = { HOME: join(dir, 'home'), XDG_DATA_HOME: '', XDG_CONFIG_HOME: '' };
});
afterEach(() => cleanup());

const dagent = async (workspace: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  spawnCli(args, join(dir, workspace), { env }).exited;

describe('user memories', () => {
  it('are shared by every workspace of the user, while project memories stay in theirs', async () => {
    expect((await dagent('shop', 'memory', 'add', '--scope', 'user', '--kind', 'preference', 'I prefer small commits with a why')).stdout).toMatch(/^remembered: \[user preference #1\]/);
    expect((await dagent('shop', 'memory', 'add', 'Prices are integer cents')).stdout).toMatch(/^remembered: \[project fact #1\]/);

    const blog = await dagent('blog', 'memory', 'list');
    expect(blog.stdout).toBe('- [user preference #1] I prefer small commits with a why  (added with dagent memory add)\n');
    expect((await dagent('blog', 'memory', 'search', 'commits')).stdout).toContain('[user preference #1]');
    expect(existsSync(join(dir, 'home', '.local', 'share', 'dagent', 'memories.db'))).toBe(true);

    const ambiguous = await dagent('shop', 'memory', 'rm', '1');
    expect(ambiguous).toMatchObject({ code: 2, stderr: 'dagent: both a project and a user memory are #1: say which with --scope project or --scope user\n' });
    expect((await dagent('blog', 'memory', 'rm', '1')).stdout).toBe('removed memory #1\n');
    expect((await dagent('shop', 'memory', 'list')).stdout).toBe('- [project fact #1] Prices are integer cents  (added with dagent memory add)\n');
    expect((await dagent('shop', 'memory', 'rm', '--scope', 'project', '1')).stdout).toBe('removed project memory #1\n');
  }, 60_000);

  it('are not a database until one is added: listing and searching a user folder without one creates nothing', async () => {
    const userDb = join(dir, 'home', '.local', 'share', 'dagent', 'memories.db');
    await dagent('shop', 'memory', 'add', 'Prices are integer cents');
    expect((await dagent('shop', 'memory', 'search', 'prices')).stdout).toContain('[project fact #1]');
    expect((await dagent('shop', 'memory', 'list')).stdout).toBe('- [project fact #1] Prices are integer cents  (added with dagent memory add)\n');
    expect((await dagent('shop', 'memory', 'rm', '--scope', 'user', '1')).code).not.toBe(0);
    expect(existsSync(userDb)).toBe(false);

    await dagent('shop', 'memory', 'add', '--scope', 'user', 'I prefer small commits');
    expect(existsSync(userDb)).toBe(true);
    expect((await dagent('blog', 'memory', 'search', 'commits')).stdout).toContain('[user fact #1]');
  }, 60_000);

  it('follow XDG_DATA_HOME when it is set', async () => {
    env = { ...env, XDG_DATA_HOME: join(dir, 'data') };
    await dagent('shop', 'memory', 'add', '--scope', 'user', 'Answer in British English');
    expect(existsSync(join(dir, 'data', 'dagent', 'memories.db'))).toBe(true);
    expect((await dagent('blog', 'memory', 'list', '--scope', 'user')).stdout).toContain('Answer in British English');
  }, 60_000);
});
