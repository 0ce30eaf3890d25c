import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli, type CliProcess } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, runEvents, until, type LoggedEvent, type SmallRun } from './fleet-harness.js';

/**
 * A worker paused (SIGSTOP) in the middle of a node, past its claim's expiry, while another
 * worker takes the node over and goes on from its last completed step: the command that was in
 * flight is reported interrupted and its effect on the files undone, not run twice. When the first
 * worker goes on, none of what it still does reaches the shared workspace or the log. Its command,
 * running in its own process group, does not outlive the claim either.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 60_000;
const CLAIM_TTL_MS = 2_000;
/**
 * The node's command: it writes a line, then waits (up to 10 s) until the test has seen the node
 * taken over before it writes its last line, so a command that outlives its worker's claim leaves
 * that line in the resumed node's file.
 */
const STEP_SCRIPT = [
  'echo start >> src/cmd.txt',
  'i=0',
  'while [ ! -e ../taken-over ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done',
  'echo end >> src/cmd.txt',
  '',
].join('\n');

const root = cliRunsRoot('dagent-stale-worker-');

function startWorker(run: SmallRun): CliProcess {
  return spawnCli(['worker', '--no-sandbox', '--claim-ttl', String(CLAIM_TTL_MS), ...run.flags], run.workspace, { timeLimitMs: 120_000 });
}

const claimsOf = (log: readonly LoggedEvent[]): LoggedEvent[] => log.filter((event) => event.type === 'attempt/claimed' && event.node_id === 'work');
const commandStarts = (log: readonly LoggedEvent[]): LoggedEvent[] => log.filter((event) => event.type === 'command/started' && event.node_id === 'work');

describe.skipIf(postgresUrl === '')('a worker paused past its claim', () => {
  it('writes nothing into the workspace or the log once another worker has taken its node over from its last step', async () => {
    const plan: Plan = {
      goal: 'Write and run',
      rationale: 'One node that writes a file and runs a command that writes another.',
      nodes: [{ id: 'work', kind: 'edit', title: 'Write, then run', instructions: 'Write n.txt, then run the command.', reads: [], writes: ['src/n.txt', 'src/cmd.txt'], dependsOn: [] }],
    };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'stale', plan, {
      'node:work': [
        { toolCalls: [{ id: 'write', name: 'write_file', args: { path: 'src/n.txt', content: 'written once\n' } }] },
        { toolCalls: [{ id: 'command', name: 'run_command', args: { command: 'sh step.sh' } }] },
        { toolCalls: [{ id: 'rewrite', name: 'write_file', args: { path: 'src/n.txt', content: 'written once\nand after the command\n' } }] },
        { text: 'Wrote n.txt and ran the command.' },
      ],
    }, ['src/n.txt', 'src/cmd.txt']);
    writeFileSync(join(run.workspace, 'step.sh'), STEP_SCRIPT);
    const workers = [startWorker(run), startWorker(run)];
    const scheduler = spawnCli(['run', run.runId, '--workers', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    await until('a worker to start the command', async () => commandStarts(await runEvents(run)).length === 1, TIMEOUT_MS / 2, [...workers, scheduler]);

    // The worker running the node is paused mid-node, its command running in a process group of its own.
    // The claim the command runs under (on a loaded machine a claim may have run out before it).
    const holding = claimsOf(await runEvents(run)).at(-1)!;
    const holder = holding.payload.pid;
    const first = workers.find((worker) => worker.child.pid === holder)!;
    const second = workers.find((worker) => worker !== first)!;
    first.child.kill('SIGSTOP');
    await until('the other worker to take the node over from its last step', async () => (await runEvents(run)).some((event) => event.type === 'step/resumed' && event.seq > holding.seq), TIMEOUT_MS / 2, [...workers, scheduler]);
    // A command that outlived its claim would now write its last line.
    writeFileSync(join(run.workspace, '..', 'taken-over'), '');
    first.child.kill('SIGCONT');

    const scheduled = await scheduler.exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(0);
    for (const worker of [first, second]) worker.child.kill('SIGTERM');
    const [firstExit, secondExit] = await Promise.all([first.exited, second.exited]);
    expect(firstExit.code, describeExit(firstExit)).toBe(0);
    expect(secondExit.code, describeExit(secondExit)).toBe(0);
    expect(firstExit.stdout).toMatch(/work \(run \S+\): node work of run \S+: claim token \d+ (expired by this worker's clock|is stale)/);

    // The workspace holds the node as resumed: the write of step 1 kept, the interrupted command's line undone, never run again.
    expect(readFileSync(join(run.workspace, 'src/cmd.txt'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(run.workspace, 'src/n.txt'), 'utf8')).toBe('written once\nand after the command\n');

    // So does the log: the command started once; after the takeover, it is closed as interrupted, then the rest runs once.
    const log = await runEvents(run);
    expect(commandStarts(log)).toHaveLength(1);
    const claims = claimsOf(log);
    const takeover = claims.find((event) => event.seq > holding.seq)!;
    expect(takeover.payload.worker).not.toBe(holding.payload.worker);
    const resumed = log.find((event) => event.type === 'step/resumed' && event.seq > takeover.seq)!;
    expect(resumed.payload).toMatchObject({ attempt: 1, fromStep: 1, interrupted: ['command'], modelCalls: 2 });
    const afterTakeover = log.filter((event) => event.node_id === 'work' && event.seq > takeover.seq);
    expect(afterTakeover.filter((event) => event.type === 'tool/result').map((event) => event.payload.toolCallId)).toEqual(['command', 'rewrite']);
    expect(afterTakeover.filter((event) => event.type === 'assistant/message')).toHaveLength(2);
    expect(log.filter((event) => event.type === 'attempt/finished').map((event) => [event.payload.token, event.payload.outcome])).toEqual([[claims.at(-1)!.payload.token, 'succeeded']]);
    // No model call was made twice: four answers in all, as the script has.
    expect(log.filter((event) => event.type === 'assistant/message' && event.node_id === 'work')).toHaveLength(4);
  }, TIMEOUT_MS * 2);
});
