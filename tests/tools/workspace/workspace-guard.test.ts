import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidPathError, PathOutsideWorkspaceError, ProtectedPathError, SymlinkLoopError, WorkspaceGuard, WorkspacePathError, type PathPurpose } from '../../../tools/index.js';

// Created at load: the case tables below name these paths.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-guard-')));
const workspace = join(root, 'workspace');
const outside = join(root, 'outside');
let guard: WorkspaceGuard;

beforeAll(async () => {
  for (const folder of [workspace, outside, join(root, 'workspace-evil'), join(workspace, 'src'), join(workspace, 'docs'), join(workspace, 'deep'), join(workspace, '.git', 'hooks'), join(workspace, '.dagent'), join(workspace, 'sub', '.git')]) {
    mkdirSync(folder, { recursive: true });
  }
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(workspace, 'docs', 'readme.md'), '# docs\n');
  writeFileSync(join(workspace, '.git', 'config'), '[core]\n');
  writeFileSync(join(workspace, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
  const link = (target: string, name: string): void => symlinkSync(target, join(workspace, name));
  link(join(outside, 'secret.txt'), 'link-file-out');
  link(outside, 'link-dir-out');
  link('..', 'link-parent');
  link('/', 'link-abs-root');
  link(join(outside, 'later.txt'), 'dangling-out');
  link(join(outside, 'new-folder'), 'dangling-dir');
  link('src/new.ts', 'dangling-in');
  link('loop-b', 'loop-a');
  link('loop-a', 'loop-b');
  link('self', 'self');
  link('src', 'link-in');
  link('link-dir-out/secret.txt', 'link-chain');
  link('../..', 'src/up');
  link('../../outside', 'deep/link');
  link('.git', 'link-git');
  link('../outside', 'relative-out');
  guard = await WorkspaceGuard.open(workspace);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Paths that must be refused for reading and writing. */
function escapeAttempts(): string[] {
  return [
    '../outside/secret.txt',
    '..',
    '../',
    'a/../../outside',
    'src/../../outside/secret.txt',
    './../outside',
    'src/./../.././outside',
    'src/../../../../../../../../etc/passwd',
    '/etc/passwd',
    '/',
    '//etc/passwd',
    `${outside}/secret.txt`,
    `${workspace}/../outside/secret.txt`,
    `${workspace}-evil/x`,
    `${workspace}/../workspace-evil/x`,
    root,
    '~/.ssh/id_rsa',
    '~',
    'link-file-out',
    'link-dir-out/secret.txt',
    'link-dir-out',
    'link-parent/outside/secret.txt',
    'link-parent',
    'link-abs-root/etc/passwd',
    'link-abs-root',
    'dangling-out',
    'dangling-dir/file.txt',
    'loop-a',
    'self',
    'loop-a/x',
    'link-chain',
    'src/up/outside/secret.txt',
    'src/up',
    'deep/link/secret.txt',
    'relative-out/secret.txt',
    'src/a.ts\0.png',
    '\0',
    'src/\0/../../outside',
    'a'.repeat(300),
    `src/${'b'.repeat(256)}.ts`,
    'a/'.repeat(2100),
  ];
}

/** Paths that may be read but must never be written. */
function protectedWrites(): string[] {
  return [
    '.git/hooks/pre-commit',
    '.git/config',
    '.git',
    '.git/',
    '.GIT/config',
    '.Git/hooks/x',
    '.git./config',
    '.git /x',
    '.g\u200cit/config',
    'GIT~1/config',
    '.git::$INDEX_ALLOCATION/config',
    'sub/.git/config',
    'src/../.git/hooks/pre-commit',
    `${workspace}/.git/config`,
    'link-git/config',
    '.dagent/dagent.db',
    '.DAGENT/config.json',
    '.dagent',
    '.',
    '',
    'src/..',
  ];
}

async function attempt(input: string, purpose: PathPurpose): Promise<{ escaped: boolean; error?: unknown }> {
  try {
    const resolved = await guard.resolve(input, purpose);
    const between = relative(guard.realRoot, resolved.absolute);
    const inside = between === '' || (!between.startsWith(`..${sep}`) && between !== '..' && !between.startsWith(sep));
    return { escaped: !inside || (purpose === 'write' && /(^|\/)\.(git|dagent)(\/|$)/i.test(resolved.relative)) };
  } catch (error) {
    return { escaped: false, error };
  }
}

describe('WorkspaceGuard: escapes', () => {
  it('has at least 50 escape attempts', () => {
    expect(escapeAttempts().length * 2 + protectedWrites().length).toBeGreaterThanOrEqual(50);
  });

  it.each(escapeAttempts())('refuses %j for reading and for writing', async (input) => {
    for (const purpose of ['read', 'write'] as const) {
      const result = await attempt(input, purpose);
      expect(result.escaped).toBe(false);
      expect(result.error).toBeInstanceOf(WorkspacePathError);
    }
  });

  it.each(protectedWrites())('never writes %j', async (input) => {
    const result = await attempt(input, 'write');
    expect(result.escaped).toBe(false);
    expect(result.error).toBeInstanceOf(WorkspacePathError);
  });

  it('keeps refusing a dangling link once its outside target exists', async () => {
    writeFileSync(join(outside, 'later.txt'), 'created later');
    await expect(guard.resolve('dangling-out', 'read')).rejects.toBeInstanceOf(PathOutsideWorkspaceError);
    await expect(guard.resolve('dangling-out', 'write')).rejects.toBeInstanceOf(PathOutsideWorkspaceError);
  });

  it('treats names that only look encoded as plain names inside the workspace', async () => {
    for (const input of ['%2e%2e/%2e%2e/etc/passwd', '..%2f..%2fetc', '..\\..\\outside', '....//....//etc', '．．/．．/etc', 'file:///etc/passwd']) {
      const resolved = await guard.resolve(input, 'write');
      expect(resolved.absolute.startsWith(`${guard.realRoot}${sep}`)).toBe(true);
    }
  });

  it('names the path and the reason in its errors', async () => {
    await expect(guard.resolve('../outside/secret.txt')).rejects.toThrow(`path "../outside/secret.txt" is outside the workspace ${workspace}`);
    await expect(guard.resolve('link-dir-out/secret.txt')).rejects.toThrow('leads outside the workspace through a symbolic link');
    await expect(guard.resolve('.git/config', 'write')).rejects.toThrow('is inside .git/, which tools never write');
    await expect(guard.resolve('.dagent/x', 'write')).rejects.toBeInstanceOf(ProtectedPathError);
    await expect(guard.resolve('loop-a')).rejects.toBeInstanceOf(SymlinkLoopError);
    await expect(guard.resolve('a\0b')).rejects.toThrow('path "a\\x00b" contains a NUL byte');
    await expect(guard.resolve('a'.repeat(300))).rejects.toBeInstanceOf(InvalidPathError);
  });
});

describe('WorkspaceGuard: legitimate paths', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src/../docs/readme.md', 'docs/readme.md'],
    ['link-in/a.ts', 'src/a.ts'],
    ['.', '.'],
    ['', '.'],
  ])('reads %j as %j', async (input, expected) => {
    expect((await guard.resolve(input, 'read')).relative).toBe(expected);
  });

  it('accepts the absolute form of a path inside', async () => {
    expect((await guard.resolve(join(workspace, 'src', 'a.ts'))).relative).toBe('src/a.ts');
  });

  it('reads inside .git and .dagent (only writing is refused)', async () => {
    expect((await guard.resolve('.git/config', 'read')).relative).toBe('.git/config');
  });

  it.each(['new-folder/new-file.ts', '.gitignore', '.github/workflows/ci.yml', 'src/.gitkeep', 'git/x', 'my.git/x', '.dagentrc', 'dangling-in'])('writes %j', async (input) => {
    const resolved = await guard.resolve(input, 'write');
    expect(resolved.absolute.startsWith(`${guard.realRoot}${sep}`)).toBe(true);
  });

  it('writes through a dangling link inside the workspace to its target', async () => {
    const target = await guard.resolve('dangling-in', 'write');
    expect(target.relative).toBe('src/new.ts');
    await guard.writeFile(target, 'new\n');
    expect(readFileSync(join(workspace, 'src', 'new.ts'), 'utf8')).toBe('new\n');
    expect(lstatSync(join(workspace, 'dangling-in')).isSymbolicLink()).toBe(true);
  });
});

describe('WorkspaceGuard: writing', () => {
  it('creates folders, replaces atomically, keeps the mode and leaves no temporary file', async () => {
    const target = await guard.resolve('out/deeper/file.sh', 'write');
    expect(await guard.writeFile(target, 'one\n')).toEqual({ created: true });
    chmodSync(target.absolute, 0o755);
    expect(await guard.writeFile(target, 'two\n')).toEqual({ created: false });
    expect(readFileSync(target.absolute, 'utf8')).toBe('two\n');
    expect(statSync(target.absolute).mode & 0o777).toBe(0o755);
    expect(readdirSync(join(workspace, 'out', 'deeper'))).toEqual(['file.sh']);
  });

  it('writes a large file whole the same way, keeping its mode, with nothing left beside it', async () => {
    const target = await guard.resolve('data/big.json', 'write');
    const big = `${'{"row": 1234567890},\n'.repeat(40_000)}`;
    expect(await guard.writeFile(target, 'small\n')).toEqual({ created: true });
    chmodSync(target.absolute, 0o600);

    expect(await guard.writeFile(target, big)).toEqual({ created: false });

    expect(readFileSync(target.absolute, 'utf8')).toBe(big);
    expect(statSync(target.absolute).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(workspace, 'data'))).toEqual(['big.json']);
  });

  it('refuses when a folder of the path is swapped for an outside link after the check', async () => {
    mkdirSync(join(workspace, 'swap'));
    const target = await guard.resolve('swap/x.txt', 'write');
    rmSync(join(workspace, 'swap'), { recursive: true });
    symlinkSync(outside, join(workspace, 'swap'));
    await expect(guard.writeFile(target, 'x')).rejects.toBeInstanceOf(PathOutsideWorkspaceError);
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
  });

  it('refuses to open a workspace that does not exist', async () => {
    await expect(WorkspaceGuard.open(join(root, 'missing'))).rejects.toThrow('cannot be opened');
  });
});
