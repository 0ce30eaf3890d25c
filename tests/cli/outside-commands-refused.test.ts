import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A new user's report, through the built binary: with the workspace in the temp folder (as demo
 * and eval workspaces are) and `--no-sandbox --approval auto`, `rm -rf ../outside-canary` deleted
 * the folder beside the workspace, and a link in the workspace let `rm -rf link-out/` and a
 * redirection reach the folder it leads to. Both are refused now, with one line that says where.
 * The only target is a canary folder beside the workspace in a temp root; HOME is in it too.
 */

vi.setConfig({ testTimeout: 60_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;
let canary: string;

beforeEach(() => {
  temp = tempDir('dagent-outside-');
  const root = realpathSync(temp.dir);
  workspace = join(root, 'ws');
  home = join(root, 'home');
  canary = join(root, 'outside-canary');
  mkdirSync(workspace);
  mkdirSync(home);
  mkdirSync(canary);
  writeFileSync(join(canary, 'target.txt'), 'orig\n');
  symlinkSync(canary, join(workspace, 'link-out'));
});
afterEach(() => temp.cleanup());

function runCommand(command: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, 'tool', 'run_command', JSON.stringify({ command }), '--approval', 'auto', '--no-sandbox'], {
    cwd: workspace,
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 50_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('dagent tool run_command --no-sandbox --approval auto', () => {
  it.each([
    ['rm -rf ../outside-canary', 'rm ../outside-canary deletes outside the workspace (CANARY already exists; in the temp folder'],
    ['rm -rf link-out/', 'rm link-out/ deletes outside the workspace (link-out/ leads to CANARY through a symbolic link)'],
    ['echo pwned > link-out/target.txt', 'redirects output to link-out/target.txt: it writes outside the workspace (link-out/target.txt leads to CANARY/target.txt through a symbolic link)'],
  ])('refuses %j, and the folder beside the workspace stays', (command, reason) => {
    const result = runCommand(command);

    expect(result.status).toBe(1);
    expect(result.output).toContain(`refused: ${reason.replaceAll('CANARY', canary)}`);
    expect(result.output).toContain('This is refused under every approval policy');
    expect(readdirSync(canary)).toEqual(['target.txt']);
    expect(readFileSync(join(canary, 'target.txt'), 'utf8')).toBe('orig\n');
  });

  it('still deletes a folder inside the workspace', () => {
    mkdirSync(join(workspace, 'build', 'out'), { recursive: true });

    const result = runCommand('rm -rf build');

    expect([result.status, existsSync(join(workspace, 'build')), readdirSync(canary)]).toEqual([0, false, ['target.txt']]);
  });
});
