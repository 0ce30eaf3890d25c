import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Without a terminal, a call that needs approval is denied. The model is told so in its own words
 * (in the log); the human reads one line that names what lets it through, and the run does not
 * pay a planner to replan around a decision that is theirs.
 */

let workspace: string;
let home: string;
let script: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-denials-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  script = join(made.dir, 'script.json');
  writeFileSync(script, JSON.stringify({ agents: { 'node:tidy': [{ toolCalls: [{ name: 'run_command', args: { command: 'touch tidy.txt' } }] }, { text: 'Tidied.' }] } }));
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Tidy', nodes: [{ id: 'tidy', kind: 'agent', title: 'Tidy up' }] }));
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(!detectSandbox().available)('a denial without a terminal', () => {
  it('fails the node with the flags and the plan field that let it through, and starts no replan', () => {
    const result = dagent('plan', '--from', 'plan.json', '--yes', '--no-dashboard', '-m', `scripted:${script}`);

    expect(result.status).toBe(1);
    const runId = /run (r-\w+) started/.exec(result.stdout)![1]!;
    expect(result.stdout).toContain(
      `✗ tidy failed: every risky action was denied (1): run_command touch tidy.txt (it writes a file) was denied: there was no terminal to ask for approval; to allow it: --approval auto (the sandbox still confines commands), or \`dagent resume ${runId} --approve-from-dashboard\` and answer in \`dagent dashboard ${runId}\`, or declare it in the plan as a command node (kind: command, command: …)`,
    );
    expect(result.stdout).not.toMatch(/replan/);
    expect(existsSync(join(workspace, 'tidy.txt'))).toBe(false);
    // The model was told in its own words, in the log.
    const told = dagent('log', runId, '--type', 'tool/result', '--json').stdout;
    expect(told).toContain('the user rejected this operation (no terminal to ask): run_command touch tidy.txt. It was not run. Do not repeat it');
  });

  it('through dagent tool, says in one line how to be asked or to allow it', () => {
    const result = dagent('tool', 'run_command', JSON.stringify({ command: 'touch made.txt' }));

    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('dagent: run_command touch made.txt (it writes a file) was denied: there was no terminal to ask for approval; run it from a terminal to be asked, or pass --approval auto to allow it (the sandbox still confines commands)');
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);
  });

  it('says why a read that is safe elsewhere needed asking: a plainly named link that leads out', () => {
    const canary = join(workspace, '..', 'canary.txt');
    writeFileSync(canary, 'outside\n');
    symlinkSync(canary, join(workspace, 'notes'));

    const result = dagent('tool', 'run_command', JSON.stringify({ command: 'cat notes' }));

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`dagent: run_command cat notes (cat reads notes, outside the workspace (notes leads to ${canary} through a symbolic link)) was denied: there was no terminal to ask for approval;`);
    expect(result.stdout).not.toContain('outside');
  });
});
