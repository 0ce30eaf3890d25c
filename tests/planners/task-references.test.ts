import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DagentError } from '../../engine/index.js';
import {
  extractTaskReferences,
  parseTaskReferences,
  resolveInsideWorkspace,
  TaskPathOutsideWorkspaceError,
  TaskReferenceError,
  UnknownTaskPathError,
  type ResolveTaskPath,
} from '../../planners/index.js';

describe('parseTaskReferences', () => {
  it.each([
    ['Rename Shape.area() in @src/a.ts and @src/b.ts.', ['src/a.ts', 'src/b.ts']],
    ['Fix @"docs/read me.md" please', ['docs/read me.md']],
    ['mail a@b.com or ops@example.org about it', []],
    ['(see @src/a.ts) and [@src/b.ts]', ['src/a.ts', 'src/b.ts']],
    ['"@src/quoted.ts"', ['src/quoted.ts']],
    ['@src/a.ts, @src/b.ts; @src/c.ts!', ['src/a.ts', 'src/b.ts', 'src/c.ts']],
    ['@src: the whole folder', ['src']],
    ['upgrade \\@types/node, keep @package.json', ['package.json']],
    ['a lone @ sign, and @"" nothing', []],
    ['unterminated @"docs/read me.md', []],
    ['line one\n@src/next-line.ts', ['src/next-line.ts']],
  ])('%j → %j', (task, paths) => {
    expect(parseTaskReferences(task).map((reference) => reference.path)).toEqual(paths);
  });

  it('keeps the reference as written and where it is', () => {
    expect(parseTaskReferences('edit @"a b.ts" and @c.ts.')).toEqual([
      { raw: '@"a b.ts"', path: 'a b.ts', index: 5 },
      { raw: '@c.ts', path: 'c.ts', index: 19 },
    ]);
  });
});

describe('extractTaskReferences', () => {
  let parent: string;
  let workspace: string;
  let outside: string;

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'dagent-refs-'));
    workspace = join(parent, 'workspace');
    outside = join(parent, 'outside');
    mkdirSync(join(workspace, 'src', 'models'), { recursive: true });
    mkdirSync(join(workspace, 'docs'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(workspace, 'src', 'models', 'invoice.ts'), 'export class Invoice {}\n');
    writeFileSync(join(workspace, 'docs', 'read me.md'), '# read me\n');
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    symlinkSync(outside, join(workspace, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'secret-link.txt'));
    symlinkSync(join(outside, 'not-there.txt'), join(workspace, 'dangling-out.txt'));
    symlinkSync(join(workspace, 'src', 'models'), join(workspace, 'models-link'));
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('returns the task and the checked paths, in order, without duplicates — never their content', async () => {
    const result = await extractTaskReferences('Rename Invoice in @src/models/invoice.ts, see @"docs/read me.md", @src/ and @./src/a.ts and again @src/a.ts; mail a@b.com', workspace);
    expect(result).toEqual({
      task: 'Rename Invoice in @src/models/invoice.ts, see @"docs/read me.md", @src/ and @./src/a.ts and again @src/a.ts; mail a@b.com',
      paths: ['src/models/invoice.ts', 'docs/read me.md', 'src', 'src/a.ts'],
    });
  });

  it('accepts .. that stays inside, an absolute path inside, and a symbolic link inside', async () => {
    const result = await extractTaskReferences(`@src/models/../a.ts @${join(workspace, 'docs')} @models-link/invoice.ts`, workspace);
    expect(result.paths).toEqual(['src/a.ts', 'docs', 'models-link/invoice.ts']);
  });

  it('unescapes \\@ in the task', async () => {
    expect(await extractTaskReferences('upgrade \\@types/node in @src/a.ts', workspace)).toEqual({ task: 'upgrade @types/node in @src/a.ts', paths: ['src/a.ts'] });
  });

  it('refuses an unknown path with an error naming it', async () => {
    const attempt = extractTaskReferences('Fix @src/missing.ts and @src/a.ts', workspace);
    await expect(attempt).rejects.toThrow(UnknownTaskPathError);
    await expect(attempt).rejects.toMatchObject({ reference: '@src/missing.ts', exitCode: 2 });
    await expect(attempt).rejects.toThrow(/^@src\/missing\.ts: no such file or folder in /);
  });

  it.each([
    ['@../outside/secret.txt', 'parent'],
    ['@src/../../outside/secret.txt', 'parent'],
    ['@/etc/passwd', 'absolute'],
    ['@escape/secret.txt', 'symlink'],
    ['@secret-link.txt', 'symlink'],
    ['@dangling-out.txt', 'symlink'],
  ])('refuses %s, which leads outside (%s)', async (task, escape) => {
    const attempt = extractTaskReferences(`read ${task}`, workspace);
    await expect(attempt).rejects.toThrow(TaskPathOutsideWorkspaceError);
    await expect(attempt).rejects.toMatchObject({ reference: task, escape });
    await expect(attempt).rejects.toThrow(`${task} leads outside the workspace`);
  });

  it('throws errors of the engine’s hierarchy', async () => {
    const error = await extractTaskReferences('@nope', workspace).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskReferenceError);
    expect(error).toBeInstanceOf(DagentError);
    expect(error).toMatchObject({ name: 'UnknownTaskPathError' });
  });

  it('uses an injected path check instead of the local one', async () => {
    const calls: string[] = [];
    const resolvePath: ResolveTaskPath = async (root, path) => {
      calls.push(`${root}|${path}`);
      return path === 'forbidden' ? { status: 'outside', escape: 'symlink' } : { status: 'inside', path: `checked/${path}`, exists: true };
    };
    expect(await extractTaskReferences('@x.ts @y.ts', '/w', { resolvePath })).toEqual({ task: '@x.ts @y.ts', paths: ['checked/x.ts', 'checked/y.ts'] });
    expect(calls).toEqual(['/w|x.ts', '/w|y.ts']);
    await expect(extractTaskReferences('@forbidden', '/w', { resolvePath })).rejects.toThrow(TaskPathOutsideWorkspaceError);
  });
});

describe('resolveInsideWorkspace', () => {
  it.each([
    ['.', { status: 'inside', path: '.', exists: true }],
    ['a/../b', { status: 'inside', path: 'b', exists: false }],
    ['..', { status: 'outside', escape: 'parent' }],
    ['a\\..\\..\\x', { status: 'outside', escape: 'parent' }],
  ])('%s → %j', async (path, expected) => {
    const root = mkdtempSync(join(tmpdir(), 'dagent-resolve-'));
    try {
      expect(await resolveInsideWorkspace(root, path)).toEqual(expected);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
