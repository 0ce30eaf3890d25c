import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, gitInit, query, until, type SmallRun } from './fleet-harness.js';

/**
 * A run spread over workers in the shared working copy is cancelled while a worker's node waits
 * for its third model answer, then resumed on workers or in the scheduler's own process: the node goes on from its last completed
 * step, as it does in the scheduler's own process. Its two answered model calls are not made (nor
 * paid) again, each write runs once, and the files are all there at the end.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 90_000;
const root = cliRunsRoot('dagent-worker-stopped-resume-');

const write = (path: string, content: string, id: string) => ({ toolCalls: [{ id, name: 'write_file', args: { path, content } }] });
const TURNS = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];

interface Row {
  readonly type: string;
  readonly step: number | null;
  readonly payload: Record<string, unknown>;
}

async function nodeEvents(run: SmallRun, type: string): Promise<Row[]> {
  const rows = await query<{ type: string; step: number | null; payload: string }>(run.url, "SELECT type, step, payload FROM events WHERE run_id = $1 AND node_id = 'work' AND type = $2 ORDER BY seq", [run.runId, type]);
  return rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, unknown> }));
}

describe.skipIf(postgresUrl === '')('a run on workers cancelled in the middle of a node', () => {
  it.each([
    ['resumed on workers, goes on from the node\'s last completed step: only the remaining model calls, each write once, the files right', true],
    ["resumed in the scheduler's own process (its node in a worktree of its own), starts the node over there: the files right", false],
  ])('%s', async (_story, onWorkers) => {
    const plan: Plan = {
      goal: 'Write three files',
      rationale: 'One node, one file a step.',
      nodes: [{ id: 'work', kind: 'edit', title: 'Write three files', instructions: 'Write out/one.txt, out/two.txt and out/three.txt.', reads: [], writes: ['out/one.txt', 'out/two.txt', 'out/three.txt'], dependsOn: [] }],
    };
    // The third answer takes a minute: the run is cancelled while it is awaited.
    const slowThird = TURNS.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn));
    const name = onWorkers ? 'on-workers' : 'in-process';
    const run = await approvedSmallRun(postgresUrl, root.dir, name, plan, { 'node:work': slowThird }, ['README.md']);
    gitInit(run.workspace);
    const scriptFile = join(root.dir, `${name}-script.json`);
    const startWorker = () => spawnCli(['worker', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: 120_000 });

    const firstWorker = startWorker();
    const scheduler = spawnCli(['run', run.runId, '--workers', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    await until('the third model call to be in flight', async () => (await nodeEvents(run, 'request/header')).some((event) => event.step === 3), TIMEOUT_MS / 2, [firstWorker, scheduler]);
    const cancel = spawnCli(['cancel', run.runId, ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    expect((await cancel.exited).code).toBe(0);
    const cancelled = await scheduler.exited;
    expect(cancelled.stdout, describeExit(cancelled)).toContain(`run ${run.runId} cancelled`);
    firstWorker.child.kill('SIGTERM');
    await firstWorker.exited;

    // The same turns, answered at once, for the worker that resumes it.
    writeFileSync(scriptFile, JSON.stringify({ agents: { 'node:work': TURNS } }));
    const secondWorker = onWorkers ? startWorker() : undefined;
    const resumed = await spawnCli(['resume', run.runId, ...(onWorkers ? ['--workers'] : []), ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }).exited;
    secondWorker?.child.kill('SIGTERM');
    const secondExit = await secondWorker?.exited;

    expect(resumed.code, `${describeExit(resumed)}\n--- the worker:\n${secondExit === undefined ? 'none' : describeExit(secondExit)}`).toBe(0);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']] as const) {
      expect(readFileSync(join(run.workspace, path), 'utf8'), path).toBe(content);
    }
    if (!onWorkers) {
      // The worker's boundary and checkpoints are of the shared working copy, not of a worktree.
      expect(await nodeEvents(run, 'step/resumed')).toEqual([]);
      expect(await nodeEvents(run, 'node/snapshotted')).toHaveLength(2);
      return;
    }
    expect(resumed.stdout).toContain('⏵ work resumed after step 2 · the model call in flight runs again · 2 model calls not repeated');
    expect((await nodeEvents(run, 'assistant/message')).map((event) => event.step), 'one answer per step, none repeated').toEqual([1, 2, 4, 5]);
    expect((await nodeEvents(run, 'tool/result')).map((event) => event.payload.toolCallId), 'each write ran once').toEqual(['w1', 'w2', 'w3']);
    expect((await nodeEvents(run, 'step/resumed'))[0]?.payload).toMatchObject({ attempt: 2, fromStep: 2, rerun: 'model-call', modelCalls: 2 });
  }, TIMEOUT_MS * 2);
});
