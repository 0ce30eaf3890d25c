import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A failed command node's one-line reason leads with the line that names the error, not the last
 * lines of the output (a stack's closing brace, the Node version); and a path outside the
 * workspace that could not be opened is named as one the sandbox may hide, with the way out.
 */

let root: string;
let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-command-failure-');
  cleanup = made.cleanup;
  root = made.dir;
  workspace = join(root, 'repo');
  home = join(root, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function planAndRun(command: string): { status: number | null; stdout: string } {
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Test', nodes: [{ id: 'test', kind: 'command', title: 'Run the tests', command }] }));
  const result = spawnSync(process.execPath, [DAGENT_BIN, 'plan', '--from', 'plan.json', '--yes', '--no-dashboard'], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout };
}

describe.skipIf(!detectSandbox().available)('a failed command node', () => {
  it('leads with the error line, then nothing of the tail', () => {
    const result = planAndRun(`echo "src/a.ts(3,1): error TS2304: Cannot find name 'x'."; echo '  requireStack: []' >&2; echo '}' >&2; echo 'Node.js v20' >&2; exit 2`);

    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/✗ test failed: `.*` exited with code 2: src\/a\.ts\(3,1\): error TS2304: Cannot find name 'x'\.\n/);
  });

  it('names a path outside the workspace that the sandbox may hide, and how to run without it', () => {
    // A private /tmp inside the sandbox: a file beside the workspace, under the system temp folder, is not there.
    const outside = join(root, 'tool.js');
    writeFileSync(outside, 'console.log("ran")\n');

    const result = planAndRun(`node ${outside}`);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`exited with code 1: Error: Cannot find module '${outside}' — ${outside} is outside the workspace, which the command sandbox may hide (a private /tmp, credential folders); if the command needs it, run with --no-sandbox or set "sandbox": { "enabled": false } in the config`);
  });
});
