import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Plan, PlanNode } from '../../../engine/index.js';
import { killRunningClis, spawnCli, type CliProcess } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';
import { approvedSmallRun, describeExit, query, runEvents } from './fleet-harness.js';

/**
 * `dagent worker` rehearses a node's path before it says it is ready (its first run's nodes then
 * go as quickly as later ones'); `--no-warm-up` takes jobs at once. Either way it runs the nodes
 * of a run, and the rehearsal leaves nothing in the store or the workspace.
 */
const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;

let root: { dir: string; cleanup: () => void };

const look = (id: string): PlanNode => ({ id, kind: 'read', title: `Look around (${id})`, instructions: 'Say what you see.', reads: [], writes: [], dependsOn: [] });
const lookTurns = (id: string): unknown[] => [
  { latencyMs: 300, toolCalls: [{ id: `${id}-list`, name: 'list_files', args: {} }] },
  { latencyMs: 300, text: `${id} saw src/` },
];

/** Resolves once the worker says it is ready (or rejects when it exits first). */
function ready(worker: CliProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    worker.child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(' ready ·')) resolve();
    });
    void worker.exited.then((exit) => reject(new Error(`the worker exited before it was ready: ${describeExit(exit)}`)));
  });
}

beforeAll(() => {
  root = tempDir('dagent-worker-warm-up-');
});

afterAll(() => {
  killRunningClis();
  root?.cleanup();
});

describe.skipIf(postgresUrl === '')('a worker warming up before it takes jobs', () => {
  it('says it warmed up when it is ready (unless told --no-warm-up), and both kinds run the nodes of a run', async () => {
    const ids = ['look-1', 'look-2', 'look-3', 'look-4'];
    const plan: Plan = { goal: 'Look four times', rationale: 'Independent looks.', nodes: ids.map(look) };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'warm', plan, Object.fromEntries(ids.map((id) => [`node:${id}`, lookTurns(id)])), ['src/a.txt']);
    const warmed = spawnCli(['worker', '-j', '1', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const cold = spawnCli(['worker', '-j', '1', '--no-sandbox', '--no-warm-up', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const workers: CliProcess[] = [warmed, cold];
    await Promise.all(workers.map(ready));

    const scheduler = spawnCli(['run', run.runId, '--workers', '--no-dashboard', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const exit = await scheduler.exited;
    for (const worker of workers) worker.child.kill('SIGTERM');
    const [warmedExit, coldExit] = await Promise.all(workers.map((worker) => worker.exited));
    expect(exit.code, describeExit(exit)).toBe(0);

    expect(warmedExit!.stdout).toMatch(/ ready · 1 at a time · shared workspace · warmed up in \d+\.\d s\n/);
    expect(coldExit!.stdout).toMatch(/ ready · 1 at a time · shared workspace\n/);
    expect(warmedExit!.stderr, 'the rehearsal went through').not.toContain('warm-up');
    const events = await runEvents(run);
    const claimedBy = new Set(events.filter((event) => event.type === 'attempt/claimed').map((event) => event.payload.pid));
    expect(claimedBy, 'both workers ran nodes').toEqual(new Set([warmed.child.pid, cold.child.pid]));
    expect(new Set(events.map((event) => event.node_id).filter((id) => id !== null))).toEqual(new Set(ids));
    expect(await query<{ id: string }>(run.url, 'SELECT id FROM runs', []), 'the rehearsal ran on a store of its own').toEqual([{ id: run.runId }]);
    expect(readdirSync(run.workspace).filter((name) => name !== '.dagent')).toEqual(['src']);
  }, TIMEOUT_MS + 30_000);
});
