import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffRun, revertRun } from '../../../engine/index.js';
import { renderUnifiedDiff } from '../../../engine/snapshots/file-diff-render.js';
import { tempDir } from '../../helpers/temp-store.js';
import { openSnapshotHarness, snapshotRows, type HarnessOptions, type SnapshotHarness } from './file-harness.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(options: HarnessOptions = {}): Promise<SnapshotHarness> {
  const opened = await openSnapshotHarness(options);
  cleanups.push(() => opened.cleanup());
  return opened;
}

/** A folder outside the workspace holding a secret: what a planted link would aim at. */
function outsideCanary(): { dir: string; secret: string } {
  const outside = tempDir('dagent-outside-');
  cleanups.push(outside.cleanup);
  const secret = 'CANARY-SECRET-7f3a';
  writeFileSync(join(outside.dir, 'secret.txt'), `${secret}\n`);
  return { dir: outside.dir, secret };
}

const allRowText = async (h: SnapshotHarness): Promise<string> => JSON.stringify(await snapshotRows(h.store, h.runId));

describe.each([
  ['a git workspace', true],
  ['a workspace without git', false],
])('snapshots and links in %s', (_name, git) => {
  it('stores a planted link as a link: neither an outside file nor the process environment lands in the snapshots or the diff', async () => {
    const { dir, secret } = outsideCanary();
    const h = await harness({ git, files: { 'src/a.ts': 'a\n' } });
    const writes = ['src/**'];
    await h.startNode('plant');
    const boundary = await h.snapshots.beginNode('plant', writes);
    mkdirSync(join(h.workspace, 'src'), { recursive: true });
    symlinkSync(join(dir, 'secret.txt'), join(h.workspace, 'src/leak.txt'));
    symlinkSync('/proc/self/environ', join(h.workspace, 'src/env.txt'));
    await h.toolWrite(h.snapshots.writeScopeFor('plant', writes), 'src/env.txt', 'overwritten through the tool\n').catch(() => undefined);
    symlinkSync('/proc/self/environ', join(h.workspace, 'src/environ'));

    const end = await h.snapshots.endNode('plant', writes, JSON.parse(JSON.stringify(boundary)));
    expect(end.filesChanged).toEqual(expect.arrayContaining(['src/environ', 'src/leak.txt']));
    const stored = await allRowText(h);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('PATH=');
    const leak = (await snapshotRows(h.store, h.runId)).find((row) => row.path === 'src/leak.txt')!;
    expect(leak.content_after).toBe(join(dir, 'secret.txt'));

    const diff = renderUnifiedDiff(await diffRun(h.store.db, h.runId, h.workspace));
    expect(diff).not.toContain(secret);
    expect(diff).not.toContain('PATH=');
    expect(diff).toContain(`diff --git a/src/leak.txt b/src/leak.txt\nnew file mode 120000\n`);
    expect(diff).toContain(`+${join(dir, 'secret.txt')}\n`);
  });

  it('never writes or deletes outside the workspace through a folder replaced by a link, even with --force', async () => {
    const { dir } = outsideCanary();
    writeFileSync(join(dir, 'f.txt'), 'outside f\n');
    writeFileSync(join(dir, 'new.txt'), 'outside new\n');
    const h = await harness({ git, files: { 'out/f.txt': 'old\n' } });
    const writes = ['out/**'];
    await h.startNode('build');
    const boundary = await h.snapshots.beginNode('build', writes);
    const scope = h.snapshots.writeScopeFor('build', writes);
    await h.toolWrite(scope, 'out/f.txt', 'new\n');
    await h.toolWrite(scope, 'out/new.txt', 'created\n');
    await h.snapshots.endNode('build', writes, boundary);
    await h.snapshots.close();
    // later, `out` becomes a link to a folder outside the workspace
    rmSync(join(h.workspace, 'out'), { recursive: true });
    symlinkSync(dir, join(h.workspace, 'out'));

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'build', force: true, log: h.log });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('outside f\n');
    expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('outside new\n');
    expect(outcome.restored.filter((file) => file.action !== 'deleted')).toEqual([]);
    expect(outcome.conflicted.map((conflict) => conflict.path)).toEqual(['out/f.txt']);
    expect(outcome.conflicted[0]!.reason).toMatch(/out is a symbolic link/);
    expect(readlinkSync(join(h.workspace, 'out'))).toBe(dir);
  });

  it('handles a link to a folder inside the workspace: the node ends, diff and revert work', async () => {
    const h = await harness({ git, files: { 'src/real/a.ts': 'a\n', 'src/x.ts': 'x\n' } });
    symlinkSync('real', join(h.workspace, 'src/alias'));
    const writes = ['src/**'];
    await h.startNode('alias');
    const boundary = await h.snapshots.beginNode('alias', writes);
    const scope = h.snapshots.writeScopeFor('alias', writes);
    await h.toolWrite(scope, 'src/x.ts', 'x edited\n');
    await scope.beforeWrite('src/alias');
    // a command replaces the file with a link to a folder, and the link with a file
    rmSync(join(h.workspace, 'src/x.ts'));
    symlinkSync('real', join(h.workspace, 'src/x.ts'));
    rmSync(join(h.workspace, 'src/alias'));
    h.put('src/alias', 'now a file\n');

    const end = await h.snapshots.endNode('alias', writes, boundary);
    expect(end.filesChanged).toEqual(['src/alias', 'src/x.ts']);
    const diff = renderUnifiedDiff(await diffRun(h.store.db, h.runId, h.workspace, { nodeId: 'alias' }));
    expect(diff).toContain('diff --git a/src/alias b/src/alias\n--- a/src/alias\n+++ b/src/alias\n@@ -1,1 +1,1 @@\n-real\n');

    const outcome = await revertRun(h.store.db, h.runId, h.workspace, { nodeId: 'alias', log: h.log });
    expect(outcome.conflicted).toEqual([]);
    expect(h.read('src/x.ts')).toBe('x\n');
    expect(readlinkSync(join(h.workspace, 'src/alias'))).toBe('real');
    expect(h.read('src/alias/a.ts')).toBe('a\n');
  });

  it('keeps a folder that existed before the node when it restores the node (an empty out/)', async () => {
    const h = await harness({ git, files: { 'README.md': 'readme\n' } });
    mkdirSync(join(h.workspace, 'out'));
    const writes = ['out/'];
    await h.startNode('emit');
    const boundary = JSON.parse(JSON.stringify(await h.snapshots.beginNode('emit', writes))) as unknown;
    h.put('out/result.txt', 'half written\n');
    mkdirSync(join(h.workspace, 'out/deep'));
    h.put('out/deep/part.txt', 'part\n');
    // the process dies here: no endNode

    expect(await h.snapshots.restoreNode('emit', boundary)).toEqual(['out/deep/part.txt', 'out/result.txt']);
    expect(existsSync(join(h.workspace, 'out'))).toBe(true);
    expect(existsSync(join(h.workspace, 'out/deep'))).toBe(false);
    expect(existsSync(join(h.workspace, 'out/result.txt'))).toBe(false);
  });
});

describe('snapshots of ignored files', () => {
  it('captures a command\'s change in a repository whose .gitignore lists .dagent', async () => {
    const h = await harness({ git: true, files: { '.gitignore': '.dagent\n', 'src/a.ts': 'a\n' } });
    const boundary = await h.snapshots.beginNode('cmd', []);
    expect(boundary.kind).toBe('watch');
    h.put('src/a.ts', 'changed by a command\n');
    expect(await h.snapshots.endNode('cmd', [], boundary)).toEqual({ filesChanged: ['src/a.ts'], strayChanges: ['src/a.ts'] });
  });

  it('restores a .gitignored file inside the node\'s writes on resume', async () => {
    const h = await harness({ git: true, files: { '.gitignore': 'logs/\n', 'logs/build.log': 'one\n', 'src/a.ts': 'a\n' } });
    const writes = ['logs/build.log'];
    await h.startNode('log');
    const boundary = JSON.parse(JSON.stringify(await h.snapshots.beginNode('log', writes))) as unknown;
    writeFileSync(join(h.workspace, 'logs/build.log'), 'one\ntwo\n');
    // the process dies here; a new process restores the node before running it again
    await h.snapshots.close();

    expect(await h.snapshots.restoreNode('log', boundary)).toEqual(['logs/build.log']);
    expect(h.read('logs/build.log')).toBe('one\n');
  });
  it('stores nothing git ignores ahead when told not to (a react run over **), and still saves a file before a tool writes it', async () => {
    const h = await harness({ git: true, watch: false, snapshotIgnored: false, files: { '.gitignore': 'node_modules/\n', 'node_modules/p/index.js': 'module\n', 'node_modules/q/index.js': 'other\n', 'src/a.ts': 'a\n' } });
    const writes = ['**'];
    await h.startNode('react');
    const boundary = JSON.parse(JSON.stringify(await h.snapshots.beginNode('react', writes))) as unknown;
    expect(await snapshotRows(h.store, h.runId)).toEqual([]);

    await h.toolWrite(h.snapshots.writeScopeFor('react', writes), 'node_modules/p/index.js', 'patched\n');
    h.put('src/a.ts', 'changed by a command\n');
    expect(await h.snapshots.endNode('react', writes, boundary, { firstAttempt: true })).toEqual({ filesChanged: ['node_modules/p/index.js', 'src/a.ts'], strayChanges: [] });
    expect((await snapshotRows(h.store, h.runId)).map((row) => row.path).sort()).toEqual(['node_modules/p/index.js', 'src/a.ts']);

    expect(await h.snapshots.restoreNode('react', boundary)).toEqual(['node_modules/p/index.js', 'src/a.ts']);
    expect([h.read('node_modules/p/index.js'), h.read('src/a.ts')]).toEqual(['module\n', 'a\n']);
  });
});
