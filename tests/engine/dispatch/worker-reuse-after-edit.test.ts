import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli, type CliExit } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, gitInit, runEvents, type LoggedEvent, type SmallRun } from './fleet-harness.js';

/**
 * A run on workers in the shared working copy, then its plan edited: only the first node's
 * instructions change. Running the new version on workers runs that node again; the node after it,
 * whose inputs come out the same, keeps its result without being dispatched, as in process.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 90_000;
const root = cliRunsRoot('dagent-worker-reuse-');

const write = (path: string, content: string, id: string) => ({ toolCalls: [{ id, name: 'write_file', args: { path, content } }] });

const PLAN: Plan = {
  goal: 'Write two files',
  rationale: 'The second builds on the first.',
  nodes: [
    { id: 'first', kind: 'edit', title: 'Write the first file', instructions: 'Write out/first.txt.', reads: [], writes: ['out/first.txt'], dependsOn: [] },
    { id: 'second', kind: 'edit', title: 'Write the second file', instructions: 'Write out/second.txt.', reads: [], writes: ['out/second.txt'], dependsOn: ['first'] },
  ],
};

/** `dagent run RUN --workers` with one worker beside it, stopped once the run has ended. */
async function runOnWorkers(run: SmallRun): Promise<CliExit> {
  const worker = spawnCli(['worker', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: 120_000 });
  const ran = await spawnCli(['run', run.runId, '--workers', '--no-dashboard', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }).exited;
  worker.child.kill('SIGTERM');
  const stopped = await worker.exited;
  expect(ran.code, `${describeExit(ran)}\n--- the worker:\n${describeExit(stopped)}`).toBe(0);
  return ran;
}

async function cli(run: SmallRun, ...args: string[]): Promise<CliExit> {
  const exit = await spawnCli([...args, ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }).exited;
  expect(exit.code, describeExit(exit)).toBe(0);
  return exit;
}

const ofType = (log: readonly LoggedEvent[], type: string): (string | null)[] => log.filter((event) => event.type === type).map((event) => event.node_id);

describe.skipIf(postgresUrl === '')('running an edited plan on workers', () => {
  it('runs the edited node again and keeps the result of the one after it, whose inputs came out the same', async () => {
    const agents = { 'node:first': [write('out/first.txt', 'first\n', 'w1'), { text: 'Wrote first.' }], 'node:second': [write('out/second.txt', 'second\n', 'w2'), { text: 'Wrote second.' }] };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'repo', PLAN, agents, ['README.md']);
    gitInit(run.workspace);
    await runOnWorkers(run);
    const before = await runEvents(run);
    expect(ofType(before, 'node/keyed'), 'each worker keyed its result').toEqual(['first', 'second']);

    const planFile = join(root.dir, 'edited.json');
    await cli(run, 'export', run.runId, planFile);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
    writeFileSync(planFile, JSON.stringify({ ...plan, nodes: plan.nodes.map((node) => (node.id === 'first' ? { ...node, instructions: `${node.instructions} End it with a newline.` } : node)) }));
    await cli(run, 'import', run.runId, planFile);
    await cli(run, 'approve', run.runId);
    const ran = await runOnWorkers(run);

    const fresh = (await runEvents(run)).slice(before.length);
    expect(fresh.filter((event) => event.type === 'reuse/missed').map((event) => [event.node_id, event.payload.reason])).toEqual([['first', 'its specification changed']]);
    expect(ofType(fresh, 'node/reused')).toEqual(['second']);
    expect(ofType(fresh, 'attempt/claimed'), 'only the edited node went to a worker').toEqual(['first']);
    expect(ran.stdout).toContain('♻ second reused: nothing it depends on changed');
    expect(readFileSync(join(run.workspace, 'out/first.txt'), 'utf8')).toBe('first\n');
    expect(readFileSync(join(run.workspace, 'out/second.txt'), 'utf8')).toBe('second\n');
  }, TIMEOUT_MS * 3);
});
