import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A plan approved once runs in CI without a terminal and without `--approval auto`: what it
 * declares runs, anything else is denied and recorded. And a run that did not do what it was
 * asked to does not say it succeeded.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-outcomes-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.txt'), 'old\n');
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), PATH: process.env.PATH };
});

afterEach(() => temp.cleanup());

const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: workspace, env: { ...env, ...extraEnv } });

function planAndScript(plan: unknown, agents: Record<string, unknown[]>): string[] {
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan));
  const script = join(temp.dir, 'script.json');
  writeFileSync(script, JSON.stringify({ agents }));
  return ['--model', `scripted:${script}`];
}

const runIdOf = (stdout: string): string => /run (\S+) /.exec(stdout)![1]!;

describe.skipIf(!detectSandbox().available)('an approved plan, run without a terminal', () => {
  it('runs its declared edits and commands, and denies and records an undeclared command', async () => {
    const model = planAndScript(
      {
        goal: 'Change a and check it',
        nodes: [
          { id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'] },
          { id: 'check', kind: 'command', title: 'Check', command: 'grep -q new src/a.txt && echo checked > check.log', dependsOn: ['edit-a'] },
        ],
      },
      {
        'node:edit-a': [
          { toolCalls: [{ name: 'write_file', args: { path: 'src/a.txt', content: 'new\n' } }, { name: 'run_command', args: { command: 'touch undeclared.txt' } }] },
          { text: 'Changed a.' },
        ],
      },
    );
    const planned = await cli(['plan', '--from', 'plan.json', ...model]);
    expect(planned.code, planned.stderr).toBe(0);
    const runId = runIdOf(planned.stdout);
    const hash = /hash[:\s]+([0-9a-f]{12,})/i.exec((await cli(['approve', runId])).stdout)![1]!;

    const run = await cli(['run', runId, '--approved', hash, ...model]);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'a.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(workspace, 'check.log'), 'utf8')).toBe('checked\n');
    expect(existsSync(join(workspace, 'undeclared.txt'))).toBe(false);
    const log = JSON.parse(`[${(await cli(['log', runId, '--type', 'approval/', '--json'])).stdout.trim().split('\n').join(',')}]`) as { type: string; nodeId: string; payload: { by: string; tool: string } }[];
    // The node's two calls run in parallel: their events may interleave in either order.
    expect(log.map((event) => [event.type, event.nodeId, event.payload.tool, event.payload.by ?? '']).sort()).toEqual([
      ['approval/granted', 'edit-a', 'write_file', 'plan'],
      ['approval/requested', 'edit-a', 'run_command', ''],
      ['approval/denied', 'edit-a', 'run_command', 'non-interactive'],
      ['approval/granted', 'check', 'run_command', 'plan'],
    ].sort());
  });
});

describe.skipIf(!detectSandbox().available)('outcomes that cannot lie', () => {
  async function runPlan(plan: unknown, agents: Record<string, unknown[]>): Promise<{ code: number; out: string; runId: string }> {
    const model = planAndScript(plan, agents);
    const planned = await cli(['plan', '--from', 'plan.json', '--yes', ...model]);
    return { code: planned.code, out: planned.stdout + planned.stderr, runId: runIdOf(planned.stdout) };
  }

  it('fails an edit node that changed no file, and says so in the progress, status and --json', async () => {
    const result = await runPlan({ goal: 'Edit a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'] }] }, { 'node:edit-a': [{ text: 'All done!' }] });

    expect(result.code).toBe(1);
    const reason = 'edit node edit-a ended without changing any file (its writes: src/a.txt)';
    expect(result.out).toContain(`✗ edit-a failed: ${reason}`);
    expect((await cli(['status', result.runId])).stdout).toContain(`edit-a failed: ${reason}`);
    const json = JSON.parse((await cli(['status', result.runId, '--json'])).stdout) as { nodes: { id: string; status: string; error?: string }[] };
    expect(json.nodes.find((node) => node.id === 'edit-a')).toMatchObject({ status: 'failed', error: reason });
  });

  it('fails a node whose every risky action was denied', async () => {
    const result = await runPlan(
      { goal: 'Tidy', nodes: [{ id: 'tidy', kind: 'agent', title: 'Tidy up', writes: [] }] },
      { 'node:tidy': [{ toolCalls: [{ name: 'run_command', args: { command: 'touch tidy.txt' } }] }, { text: 'Tidied.' }] },
    );

    expect(result.code).toBe(1);
    expect(result.out).toContain('✗ tidy failed: every risky action was denied (1): run_command touch tidy.txt (it writes a file) was denied: there was no terminal to ask for approval; to allow it: --approval auto');
    // No replan: a planner cannot give the approval no one was there to give.
    expect(result.out).not.toContain('replan');
  });

  it('fails a command node with its exit code and the line that names the error', async () => {
    const result = await runPlan(
      { goal: 'Test', nodes: [{ id: 'test', kind: 'command', title: 'Run the tests', command: 'echo compiling; echo "error: 2 tests failed" >&2; exit 3' }] },
      {},
    );

    expect(result.code).toBe(1);
    expect(result.out).toContain('✗ test failed: `echo compiling; echo "error: 2 tests failed" >&2; exit 3` exited with code 3: error: 2 tests failed');
    const status = (await cli(['status', result.runId])).stdout;
    // The node's line says it once, as the run's progress did: the whole output is in the log.
    expect(status).toContain('test failed: `echo compiling; echo "error: 2 tests failed" >&2; exit 3` exited with code 3: error: 2 tests failed\n');
    expect(status).not.toContain('--- stderr ---');
  });

  it('refuses a plan that writes into .git/ or .dagent/ before any run starts', async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Hook', nodes: [{ id: 'hook', kind: 'edit', title: 'Add a hook', writes: ['.git/hooks/pre-commit'] }, { id: 'log', kind: 'edit', title: 'Edit the log', writes: ['.dagent/**'] }] }));

    const result = await cli(['plan', '--from', 'plan.json']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nodes[0] (hook).writes: ".git/hooks/pre-commit" writes into .git/, which no node may change (the repository history)');
    expect(result.stderr).toContain(`nodes[1] (log).writes: ".dagent/**" writes into .dagent/, which no node may change (dagent's own log and snapshots)`);
  });
});

describe('without the OS sandbox', () => {
  const missing = { DAGENT_BWRAP: '/nonexistent/bwrap' };

  it('refuses under auto a command the checker cannot prove read-only, with one line on what to do; read-only ones still run', async () => {
    const refused = await cli(['--approval', 'auto', 'tool', 'run_command', JSON.stringify({ command: 'touch made.txt' })], missing);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'refused: no OS sandbox on this machine (bubblewrap (bwrap) is not installed at /nonexistent/bwrap), and the command checker cannot prove this command read-only; install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or pass --no-sandbox to run commands unconfined.',
    );
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);

    const readOnly = await cli(['--approval', 'auto', 'tool', 'run_command', JSON.stringify({ command: 'cat src/a.txt' })], missing);
    expect(readOnly.code).toBe(0);
    expect(readOnly.stdout).toContain('old');

    const explicit = await cli(['--approval', 'auto', '--no-sandbox', 'tool', 'run_command', JSON.stringify({ command: 'touch made.txt' })], missing);
    expect(explicit.code).toBe(0);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
  });

  it('is reported by doctor, which exits 1', async () => {
    const doctor = await cli(['doctor'], missing);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^sandbox +FAIL {2}bubblewrap \(bwrap\) is not installed at \/nonexistent\/bwrap; under --approval auto only read-only commands run\. Fix: install bubblewrap/m);
  });
});
