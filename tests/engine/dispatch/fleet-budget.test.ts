import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan, PlanNode } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli, type CliProcess } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, runEvents, runStatus, type SmallRun } from './fleet-harness.js';

/**
 * A run's budget holds across processes: the scheduler (`run --workers --max-cost`) and two
 * `dagent worker` processes sum the spend from the shared log. A worker's node whose next call
 * would cross the cap is refused, the scheduler hears it and pauses the run with the spend at most
 * the cap; resumed with a higher cap on the same workers, the run finishes.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;
const CAP_USD = 0.03;

const look = (id: string): PlanNode => ({ id, kind: 'read', title: `Look around (${id})`, instructions: 'Say what you see.', reads: [], writes: [], dependsOn: [] });
const lookTurns = (id: string): unknown[] => [
  { toolCalls: [{ id: `${id}-list`, name: 'list_files', args: {} }], usage: { output: 50, cacheHit: 0 } },
  { text: `${id}: nothing to see`, usage: { output: 50, cacheHit: 0 } },
];

function startWorker(run: SmallRun): CliProcess {
  return spawnCli(['worker', '--no-sandbox', '-j', '1', '--claim-ttl', '3000', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS * 2 });
}

async function stopWorker(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  expect(exit.code, describeExit(exit)).toBe(0);
}

function spentUsd(events: Awaited<ReturnType<typeof runEvents>>): number {
  return events.filter((event) => event.type === 'assistant/message').reduce((sum, event) => sum + Number(event.payload.costUsd ?? 0), 0);
}

const root = cliRunsRoot('dagent-fleet-budget-');

describe.skipIf(postgresUrl === '')('a budget across a scheduler and two workers', () => {
  it('pauses the run at the cap wherever the call was, and finishes when resumed with a higher one', async () => {
    const ids = ['look-1', 'look-2', 'look-3', 'look-4', 'look-5', 'look-6'];
    const plan: Plan = { goal: 'Look six times', rationale: 'Six independent looks.', nodes: ids.map(look) };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'budget', plan, Object.fromEntries(ids.map((id) => [`node:${id}`, lookTurns(id)])), ['src/a.txt']);
    // The repository prices the scripted model (a repository may raise a price): every process reads it.
    mkdirSync(join(run.workspace, '.dagent'), { recursive: true });
    writeFileSync(join(run.workspace, '.dagent', 'config.json'), JSON.stringify({ prices: { scripted: { inputCacheMiss: 1, inputCacheHit: 1, output: 10 } } }));
    const workers = [startWorker(run), startWorker(run)];

    const scheduler = spawnCli(['run', run.runId, '--workers', '--max-cost', String(CAP_USD), '--no-dashboard', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const scheduled = await scheduler.exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(0);
    expect(scheduled.stdout).toContain(`run ${run.runId} paused: the run's budget is reached: spent $`);
    const suggested = Number(new RegExp(`resume with a higher cap: dagent resume ${run.runId} --max-cost (\\S+)$`, 'm').exec(scheduled.stdout)?.[1]);
    expect(suggested).toBeGreaterThan(CAP_USD);
    expect(await runStatus(run.url, run.runId)).toBe('paused');
    const atPause = await runEvents(run);
    expect(spentUsd(atPause)).toBeGreaterThan(0);
    expect(spentUsd(atPause)).toBeLessThanOrEqual(CAP_USD);
    const refusal = atPause.find((event) => event.type === 'budget/reached');
    expect(refusal?.payload).toMatchObject({ scope: 'run', measure: 'cost', cap: CAP_USD });
    // Not every node ran: the rest wait for the resume.
    expect(atPause.filter((event) => event.type === 'node/succeeded').length).toBeLessThan(ids.length);

    const resumed = spawnCli(['resume', run.runId, '--workers', '--max-cost', '1', '--no-dashboard', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const finished = await resumed.exited;
    expect(finished.code, describeExit(finished)).toBe(0);
    expect(finished.stdout).toContain(`run ${run.runId} succeeded`);
    const atEnd = await runEvents(run);
    expect(atEnd.filter((event) => event.type === 'budget/set').map((event) => event.payload)).toEqual([{ maxCostUsd: CAP_USD, source: 'flags' }, { maxCostUsd: 1, source: 'flags' }]);
    expect(new Set(atEnd.filter((event) => event.type === 'attempt/claimed').map((event) => event.payload.pid)).size).toBe(2);
    for (const worker of workers) await stopWorker(worker);
  }, TIMEOUT_MS * 3);
});
