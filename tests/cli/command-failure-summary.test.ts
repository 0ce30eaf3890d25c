import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

function planAndRun(command: string): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Test', nodes: [{ id: 'test', kind: 'command', title: 'Run the tests', command }] }));
  const result = spawnSync(process.execPath, [DAGENT_BIN, 'plan', '--from', 'plan.json', '--yes', '--no-dashboard'], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
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
    const folder = /^\/tmp\/[^/]+/.exec(outside)?.[0];
    expect(result.stdout).toContain(
      `exited with code 1: Error: Cannot find module '${outside}' — ${outside} is outside the workspace, which the command sandbox may hide (a private /tmp, credential folders); if the command needs to read it, add "${folder}" to "sandbox": { "readPaths": [...] } in your config (~/.config/dagent/config.json)`,
    );
  });

  it('reads the folder once it is in sandbox.readPaths of the user\'s config, and still cannot write there', () => {
    const outside = join(root, 'tool.js');
    writeFileSync(outside, 'console.log("ran")\n');
    const canary = join(root, 'canary');
    mkdirSync(canary);
    mkdirSync(join(home, '.config', 'dagent'), { recursive: true });
    writeFileSync(join(home, '.config', 'dagent', 'config.json'), JSON.stringify({ sandbox: { readPaths: [root] } }));

    expect(planAndRun(`node ${outside}`)).toMatchObject({ status: 0 });
    // `touch` there is refused by the command checker (the folder exists in the temp folder, outside
    // the workspace); a program the checker cannot see into meets the sandbox's read-only mount.
    expect(planAndRun(`touch ${join(canary, 'written')}`).stdout).toContain('was refused: refused: touch');
    const write = planAndRun(`node -e "require('fs').writeFileSync(process.argv[1], 'x')" ${join(canary, 'written')}`);
    expect(write.status).toBe(1);
    expect(write.stdout).toMatch(/read-only file system/i);
    expect(existsSync(join(canary, 'written'))).toBe(false);
  });

  it('ignores readPaths in the repository\'s own config until the workspace is trusted', () => {
    const outside = join(root, 'tool.js');
    writeFileSync(outside, 'console.log("ran")\n');
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ sandbox: { readPaths: [root] } }));

    const untrusted = planAndRun(`node ${outside}`);
    expect(untrusted.status).toBe(1);
    expect(untrusted.stderr).toContain('sets sandbox; ignored until you trust this workspace (`dagent trust`)');

    expect(spawnSync(process.execPath, [DAGENT_BIN, 'trust'], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home } }).status).toBe(0);
    expect(planAndRun(`node ${outside}`)).toMatchObject({ status: 0 });
  });
});
