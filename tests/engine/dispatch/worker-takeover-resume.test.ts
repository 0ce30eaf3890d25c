import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedRunOnNewDatabase, describeExit, gitInit, runEvents, until, type LoggedEvent } from './fleet-harness.js';

/**
 * Two workers, each in its own clone: the one running a node is killed (-9) while the node's
 * command runs, after a step that wrote a file. The other takes the node over from its last
 * completed step: its clone is put at that step's checkpoint (a patch kept in the log), no model
 * call made before the kill is made again, and the command in flight is reported, not run twice.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 90_000;
/**
 * The dead worker's node is queued again once its job has been locked a claim TTL (the
 * scheduler's default, 15 s), whatever this is: a claim long enough that a worker on a starved CI
 * host is not mistaken for a stalled one costs the story nothing.
 */
const CLAIM_TTL_MS = 5_000;

/** The command waits (up to 20 s) for a file that never comes: the worker is killed while it runs. */
const WAIT_SCRIPT = 'i=0\nwhile [ ! -e never-there ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done\n';

const root = cliRunsRoot('dagent-takeover-resume-');

const forNode = (log: readonly LoggedEvent[], type: string): LoggedEvent[] => log.filter((event) => event.type === type && event.node_id === 'work');

describe.skipIf(postgresUrl === '')('a worker killed in the middle of a node, in clone mode', () => {
  it('is taken over by another worker from its last completed step, in that worker’s own clone', async () => {
    const workspace = join(root.dir, 'repo');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src/a.txt'), 'a before\n');
    writeFileSync(join(workspace, 'src/b.txt'), 'b before\n');
    writeFileSync(join(workspace, 'wait.sh'), WAIT_SCRIPT);
    gitInit(workspace);
    const plan: Plan = {
      goal: 'Write two files around a long command',
      rationale: 'One node: a write, a command, another write.',
      nodes: [{ id: 'work', kind: 'edit', title: 'Write, wait, write', instructions: 'Write a.txt, run the command, write b.txt.', reads: [], writes: ['src/a.txt', 'src/b.txt'], dependsOn: [] }],
    };
    const planFile = join(root.dir, 'plan.json');
    const scriptFile = join(root.dir, 'script.json');
    writeFileSync(planFile, JSON.stringify(plan));
    writeFileSync(
      scriptFile,
      JSON.stringify({
        agents: {
          'node:work': [
            { toolCalls: [{ id: 'write-a', name: 'write_file', args: { path: 'src/a.txt', content: 'a after\n' } }] },
            { toolCalls: [{ id: 'wait', name: 'run_command', args: { command: 'sh wait.sh' } }] },
            { toolCalls: [{ id: 'write-b', name: 'write_file', args: { path: 'src/b.txt', content: 'b after\n' } }] },
            { text: 'Wrote a.txt and b.txt.' },
          ],
        },
      }),
    );
    const run = await approvedRunOnNewDatabase(postgresUrl, workspace, planFile, scriptFile);
    const clones = [1, 2].map((index) => {
      const clone = join(root.dir, `clone-${index}`);
      execFileSync('git', ['clone', '-q', workspace, clone], { stdio: 'ignore' });
      return clone;
    });
    const startWorker = (clone: string) => spawnCli(['worker', '--no-sandbox', '--clone', clone, '--claim-ttl', String(CLAIM_TTL_MS), ...run.flags], clone, { timeLimitMs: 120_000 });
    const first = startWorker(clones[0]!);
    const scheduler = spawnCli(['run', run.runId, '--workers', '--clone', ...run.flags], workspace, { timeLimitMs: TIMEOUT_MS });
    await until('the first worker to start the command', async () => forNode(await runEvents(run), 'command/started').length === 1, TIMEOUT_MS / 2, [first, scheduler]);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startWorker(clones[1]!);
    const scheduled = await scheduler.exited;
    second.child.kill('SIGTERM');
    const secondExit = await second.exited;
    // What the second worker said goes with a failed run: it is where the node ran.
    expect(scheduled.code, `${describeExit(scheduled)}\n--- the second worker:\n${describeExit(secondExit)}`).toBe(0);
    expect(secondExit.code, describeExit(secondExit)).toBe(0);

    const log = await runEvents(run);
    const claims = forNode(log, 'attempt/claimed');
    expect(claims[0]?.payload.token).toBe(1);
    expect(claims.length).toBeGreaterThanOrEqual(2);
    // Four answers in all: the two made before the kill were not asked for again.
    expect(forNode(log, 'assistant/message')).toHaveLength(4);
    expect(forNode(log, 'command/started')).toHaveLength(1);
    const [resumed] = forNode(log, 'step/resumed');
    expect(resumed?.payload).toMatchObject({ attempt: 1, fromStep: 1, interrupted: ['wait'], restored: ['src/a.txt'], modelCalls: 2 });
    // The second worker's clone went on from the checkpoint: its patch holds the first write too.
    const [finished] = forNode(log, 'attempt/finished');
    expect(finished?.payload).toMatchObject({ token: claims.at(-1)?.payload.token, outcome: 'succeeded' });
    expect(String(finished?.payload.patch)).toContain('+a after');
    expect(String(finished?.payload.patch)).toContain('+b after');
    expect(readFileSync(join(workspace, 'src/a.txt'), 'utf8')).toBe('a after\n');
    expect(readFileSync(join(workspace, 'src/b.txt'), 'utf8')).toBe('b after\n');
  }, TIMEOUT_MS * 2);
});
