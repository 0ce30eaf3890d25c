import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A command node that declares no writes, in a folder that is not a git repository: what its
 * command changes is seen all the same (the workspace is scanned before the command and at the
 * node's end), so it is announced, diffed and undone like a change in a git repository.
 */
const PLAN = `goal: Grow the files
nodes:
  - id: grow
    kind: command
    title: Grow the files
    command: "echo tail >> big.txt && echo generated > notes.txt"
    writes: []
`;

/** Over the 1 MiB a scan keeps of a file's content. */
const HUGE_BYTES = 1024 * 1024 + 4096;

let workspace: string;
let home: string;
let cleanups: (() => void)[] = [];

const cli = (...args: string[]) => runCli(args, { cwd: workspace, env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), PATH: process.env.PATH } });
const read = (path: string): string | undefined => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : undefined);

beforeEach(() => {
  const ws = tempDir('dagent-side-effects-nogit-');
  const homeDir = tempDir('dagent-side-effects-nogit-home-');
  cleanups = [ws.cleanup, homeDir.cleanup];
  workspace = ws.dir;
  home = homeDir.dir;
  writeFileSync(join(workspace, 'big.txt'), 'line one\n');
  writeFileSync(join(workspace, 'plan.yaml'), PLAN);
});
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

async function runPlan(): Promise<string> {
  const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain('⚠ grow changed files outside its declared writes: big.txt, notes.txt');
  const runId = /run (r-[0-9a-z]+) succeeded/.exec(ran.stdout)?.[1];
  expect(runId).toBeDefined();
  return runId!;
}

describe('without git, a command that changes files outside its declared writes', () => {
  it('is warned about, shown in status and diff, and undone by revert --node', async () => {
    const runId = await runPlan();

    const status = await cli('status', runId);
    expect(status.stdout).toContain('warning: grow changed files outside its declared writes: big.txt, notes.txt');

    const diff = await cli('diff', runId);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain(' line one\n+tail\n');
    expect(diff.stdout).toContain('+++ b/notes.txt');
    expect(diff.stderr).toContain('warning: changed outside the declared writes of the node that changed them');

    const reverted = await cli('revert', runId, '--node', 'grow');
    expect(reverted.code).toBe(0);
    expect(read('big.txt')).toBe('line one\n');
    expect(read('notes.txt')).toBeUndefined();
  });

  it('over the size a scan keeps, is seen changed, and revert says it cannot put it back', async () => {
    writeFileSync(join(workspace, 'big.txt'), 'a'.repeat(HUGE_BYTES));
    const runId = await runPlan();

    expect((await cli('diff', runId, '--stat')).stdout).toMatch(/big\.txt +\| not recorded +grow/);

    const reverted = await cli('revert', runId, '--node', 'grow');
    expect(reverted.code).toBe(1);
    const said = reverted.stdout + reverted.stderr;
    expect(said).toMatch(/big\.txt +its content before was not recorded \(larger than the snapshot limit\), so it cannot be put back: left as it is/);
    expect(said).toContain('big.txt cannot be reverted, even with --force');
    expect(read('notes.txt')).toBeUndefined();
    expect(read('big.txt')?.endsWith('tail\n')).toBe(true);
  });

  it('made by a NodeStart hook, before the node runs its command, is the node\'s change too', async () => {
    mkdirSync(join(home, 'config', 'dagent'), { recursive: true });
    writeFileSync(join(home, 'config', 'dagent', 'config.json'), JSON.stringify({ hooks: { NodeStart: [{ matcher: 'grow', command: 'echo stamped > stamp.txt' }] } }));
    const runId = await runPlan();

    expect((await cli('status', runId)).stdout).toContain('warning: grow changed files outside its declared writes: big.txt, notes.txt, stamp.txt');
    expect((await cli('revert', runId, '--node', 'grow')).code).toBe(0);
    expect(read('stamp.txt')).toBeUndefined();
  });
});
