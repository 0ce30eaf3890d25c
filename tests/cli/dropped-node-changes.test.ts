import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A plan version that drops a node which already ran does not undo the node's change: `import`
 * and `approve` say which files stay changed and the exact command that reverts them.
 */

const WRITE_NOTES = { id: 'write-notes', kind: 'command', title: 'Write notes', command: 'echo new > notes.txt', writes: ['notes.txt'] };
const HELLO = { id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello' };

let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-dropped-node-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  for (const folder of [workspace, home]) mkdirSync(folder);
  writeFileSync(join(workspace, 'notes.txt'), 'old\n');
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Notes', nodes: [WRITE_NOTES, HELLO] }));
  writeFileSync(join(workspace, 'without-notes.json'), JSON.stringify({ goal: 'Notes', nodes: [HELLO] }));
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ranPlan(): string {
  const runId = (JSON.parse(dagent('--json', 'plan', '--from', 'plan.json').stdout) as { runId: string }).runId;
  expect(dagent('approve', runId).status).toBe(0);
  const run = dagent('run', runId, '--no-dashboard');
  expect(run.status, run.stderr).toBe(0);
  expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('new\n');
  return runId;
}

describe('a new plan version that drops a node which already ran', () => {
  it('import and approve say its change stays, which files, and the revert command', () => {
    const runId = ranPlan();
    const note = `note: write-notes is not in this plan, but the change it made stays in the workspace (notes.txt); dropping a node does not undo it: \`dagent revert ${runId} --node write-notes\` does`;

    const imported = dagent('import', runId, 'without-notes.json');
    expect(imported.stdout).toContain(note);
    expect(dagent('approve', runId).stdout).toContain(note);
    const json = JSON.parse(dagent('--json', 'approve', runId).stdout) as { droppedChanges?: unknown };
    expect(json.droppedChanges).toEqual([{ node: 'write-notes', files: ['notes.txt'], revert: `dagent revert ${runId} --node write-notes` }]);
  });

  it('says nothing once the node\'s change is reverted', () => {
    const runId = ranPlan();
    expect(dagent('revert', runId, '--node', 'write-notes').status).toBe(0);

    expect(dagent('import', runId, 'without-notes.json').stdout).not.toContain('note: write-notes');
    expect(dagent('approve', runId).stdout).not.toContain('note: write-notes');
  });
});
