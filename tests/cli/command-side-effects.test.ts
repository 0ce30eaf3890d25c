import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/** A command node that declares no writes (the usual shape of `npm test`) but changes files anyway. */
const PLAN = `goal: Stamp the build
nodes:
  - id: stamp
    kind: command
    title: Stamp the build
    command: "echo generated > notes.txt && echo appended >> tracked.txt"
    writes: []
`;

let workspace: string;
let home: string;
let cleanups: (() => void)[] = [];

const cli = (...args: string[]) => runCli(args, { cwd: workspace, env: { HOME: home, PATH: process.env.PATH } });
const read = (path: string): string | undefined => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : undefined);

beforeEach(() => {
  const ws = tempDir('dagent-side-effects-');
  const homeDir = tempDir('dagent-side-effects-home-');
  cleanups = [ws.cleanup, homeDir.cleanup];
  workspace = ws.dir;
  home = homeDir.dir;
  writeFileSync(join(workspace, 'tracked.txt'), 'line one\n');
  writeFileSync(join(workspace, 'plan.yaml'), PLAN);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, env: { PATH: process.env.PATH, HOME: home } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'add', 'tracked.txt');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'initial');
});
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

describe('a command that changes files outside its declared writes', () => {
  it('is warned about, shown in status and diff, and undone by revert --node', async () => {
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('⚠ stamp changed files outside its declared writes: notes.txt, tracked.txt');
    const runId = /run (r-[0-9a-z]+) succeeded/.exec(ran.stdout)?.[1];
    expect(runId).toBeDefined();

    const status = await cli('status', runId!);
    expect(status.stdout).toContain('warning: stamp changed files outside its declared writes: notes.txt, tracked.txt');
    const statusJson = JSON.parse((await cli('status', runId!, '--json')).stdout) as { nodes: { id: string; undeclaredChanges?: string[] }[] };
    expect(statusJson.nodes[0]).toMatchObject({ id: 'stamp', undeclaredChanges: ['notes.txt', 'tracked.txt'] });

    const diff = await cli('diff', runId!);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,1 @@\n+generated\n');
    expect(diff.stdout).toContain(' line one\n+appended\n');
    expect(diff.stderr).toContain('warning: changed outside the declared writes of the node that changed them');

    const reverted = await cli('revert', runId!, '--node', 'stamp');
    expect(reverted.code).toBe(0);
    expect(read('notes.txt')).toBeUndefined();
    expect(read('tracked.txt')).toBe('line one\n');
  });
});
