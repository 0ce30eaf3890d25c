import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyNodePatch, controlledGitEnvironment, diffRun } from '../../../engine/index.js';
import { tempDir } from '../../helpers/temp-store.js';
import { openSnapshotHarness, type SnapshotHarness } from './file-harness.js';

/**
 * A repository whose config names programs (a filter, a textconv, an fsmonitor, hooks), selected
 * for every file by a `.gitattributes` a command could write: dagent's own git processes outside
 * the sandbox (snapshots, diffs, patches) run none of them.
 */
describe('git as dagent runs it outside the sandbox', () => {
  let h: SnapshotHarness;
  let canaries: { dir: string; cleanup: () => void };
  let home: string;
  const savedHome = process.env.HOME;

  const ran = (): string[] => readdirSync(canaries.dir).filter((name) => name !== 'home');

  beforeEach(async () => {
    canaries = tempDir('dagent-git-canaries-');
    home = join(canaries.dir, 'home');
    mkdirSync(home);
    process.env.HOME = home;
    h = await openSnapshotHarness({ git: true, files: { 'src/a.txt': 'plain\n' } });
    const touch = (name: string): string => `touch ${join(canaries.dir, name)}; cat`;
    h.git('config', 'filter.x.clean', touch('clean'));
    h.git('config', 'filter.x.smudge', touch('smudge'));
    h.git('config', 'filter.x.required', 'true');
    h.git('config', 'diff.x.textconv', touch('textconv'));
    h.git('config', 'core.fsmonitor', touch('fsmonitor'));
    mkdirSync(join(h.workspace, 'hooks'));
    h.git('config', 'core.hooksPath', join(h.workspace, 'hooks'));
    h.put('.gitattributes', '* filter=x diff=x\n');
    // A user config in a home the workspace holds (a home folder used as the workspace).
    h.put('.gitconfig', `[filter "y"]\n\tclean = ${touch('global-clean')}\n`);
    process.env.HOME = h.workspace;
  });

  afterEach(async () => {
    process.env.HOME = savedHome;
    await h.cleanup();
    canaries.cleanup();
  });

  it('snapshots and diffs a node with no filter, textconv, fsmonitor or hook run, and stores the bytes as they are', async () => {
    const boundary = await h.snapshots.beginNode('edit', ['src/*.txt']);
    h.put('src/a.txt', 'changed\n');
    h.put('src/b.txt', 'new\n');
    expect(await h.snapshots.endNode('edit', ['src/*.txt'], boundary)).toMatchObject({ filesChanged: ['src/a.txt', 'src/b.txt'] });
    const diff = await diffRun(h.store.db, h.runId, h.workspace);
    expect(JSON.stringify(diff)).toContain('changed');
    await applyNodePatch(h.workspace, 'diff --git a/src/c.txt b/src/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/c.txt\n@@ -0,0 +1 @@\n+patched\n');
    expect(ran()).toEqual([]);
    expect(h.read('src/c.txt')).toBe('patched\n');
  });

  it('blanks every driver the repository config names and takes no user or system config', () => {
    const env = controlledGitEnvironment({ cwd: h.workspace });
    const config = Object.entries(env).filter(([key]) => key.startsWith('GIT_CONFIG_KEY_')).map(([key, name]) => `${name}=${env[key.replace('KEY', 'VALUE')]}`);
    expect(config).toEqual(expect.arrayContaining(['filter.x.clean=', 'filter.x.smudge=', 'filter.x.process=', 'filter.x.required=false', 'diff.x.textconv=', 'core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.attributesFile=/dev/null']));
    expect([env.GIT_CONFIG_NOSYSTEM, env.GIT_CONFIG_GLOBAL, env.GIT_ATTR_NOSYSTEM]).toEqual(['1', '/dev/null', '1']);
    expect(existsSync(join(canaries.dir, 'clean'))).toBe(false);
  });
});
