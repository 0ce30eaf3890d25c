import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedRunOnNewDatabase, describeExit, gitInit } from './fleet-harness.js';

/**
 * `run --workers` where the repository asks for `isolation: worktree`: the nodes run on workers in
 * the shared working copy (worktrees are made only for runs in one process), and the scheduler
 * says so in one line instead of leaving the user to find no `dagent/<run>` branch.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;

const root = cliRunsRoot('dagent-fleet-isolation-');

describe.skipIf(postgresUrl === '')('isolation: worktree with --workers', () => {
  it('runs the nodes shared on the workers and says so in one line', async () => {
    const workspace = join(root.dir, 'repo');
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree' }));
    gitInit(workspace);
    const plan: Plan = {
      goal: 'Append to a',
      rationale: 'One command on a worker.',
      nodes: [{ id: 'append', kind: 'command', title: 'Append to a', instructions: 'Append.', command: 'echo more >> a.txt', reads: [], writes: ['a.txt'], dependsOn: [] }],
    };
    const planFile = join(root.dir, 'plan.json');
    const scriptFile = join(root.dir, 'script.json');
    writeFileSync(planFile, JSON.stringify(plan));
    writeFileSync(scriptFile, JSON.stringify({ agents: {} }));
    const run = await approvedRunOnNewDatabase(postgresUrl, workspace, planFile, scriptFile);
    const worker = spawnCli(['worker', '--no-sandbox', '-j', '1', ...run.flags], workspace, { timeLimitMs: TIMEOUT_MS });

    const scheduled = await spawnCli(['run', run.runId, '--workers', '--no-dashboard', ...run.flags], workspace, { timeLimitMs: TIMEOUT_MS }).exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(0);
    expect(scheduled.stderr).toContain(
      `isolation: shared — nodes share the working copy, changes found by snapshots (nodes run on workers; isolation: worktree is set, but worktrees are made only for runs without --workers)`,
    );
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('a\nmore\n');
    expect(execFileSync('git', ['branch', '--list', `dagent/${run.runId}`], { cwd: workspace, encoding: 'utf8' }).trim()).toBe('');
    worker.child.kill('SIGTERM');
    const stopped = await worker.exited;
    expect(stopped.code, describeExit(stopped)).toBe(0);
  }, TIMEOUT_MS * 2);
});
