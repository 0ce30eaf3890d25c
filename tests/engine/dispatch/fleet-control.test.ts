import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyEvents, createDashboardState, plainText, renderScreen } from '../../../dashboard/index.js';
import { emptyRunView, openDatabase, readEvents, type Plan, type PlanNode } from '../../../engine/index.js';
import { killRunningClis, spawnCli, type CliProcess } from '../../helpers/crash-process.js';
import { isRunning } from '../../helpers/process-alive.js';
import { tempDir } from '../../helpers/temp-store.js';
import { approvedSmallRun, describeExit, runEvents as events, until, type SmallRun } from './fleet-harness.js';

/**
 * What a run's scheduler and its workers hear from each other through the log when they are
 * separate processes: missed work a worker's node reports is replanned by the scheduler, a
 * `dagent cancel` from a host that cannot signal the scheduler stops the run and the node a
 * worker is running, and a worker lets go of what it opened for a run (an MCP server) once the
 * run is over.
 */

const postgresUrl = inject('postgresUrl');
const SERVER_SCRIPT = fileURLToPath(new URL('../../fixtures/mcp/test-server.mjs', import.meta.url));
const TIMEOUT_MS = 60_000;

let root: { dir: string; cleanup: () => void };
let configHome: string;

const edit = (id: string, path: string, dependsOn: string[] = []): PlanNode => ({ id, kind: 'edit', title: `Edit ${path}`, instructions: `Add a line to ${path}.`, reads: [path], writes: [path], dependsOn });
const look = (id: string): PlanNode => ({ id, kind: 'read', title: `Look around (${id})`, instructions: 'Say what you see.', reads: [], writes: [], dependsOn: [] });
const editTurns = (id: string, path: string): unknown[] => [
  { toolCalls: [{ id: `${id}-edit`, name: 'edit_file', args: { path, old_string: 'hello\n', new_string: `hello\nedited by ${id}\n` } }] },
  { text: `${id} edited ${path}` },
];

function startWorker(run: SmallRun): CliProcess {
  // Unconfined, so the MCP server's pid is this machine's.
  return spawnCli(['worker', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: 120_000, env: { XDG_CONFIG_HOME: configHome } });
}

async function stopWorker(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  expect(exit.code, describeExit(exit)).toBe(0);
}

/** `hostname` can be made to differ for one process (bubblewrap's own UTS namespace): a `dagent cancel` "on another host". */
const ELSEWHERE = ['bwrap', '--dev-bind', '/', '/', '--unshare-uts', '--hostname', 'elsewhere', '--'];
const canRunElsewhere = ((): boolean => spawnSync(ELSEWHERE[0]!, [...ELSEWHERE.slice(1), 'hostname'], { encoding: 'utf8' }).stdout?.trim() === 'elsewhere')();

beforeAll(() => {
  root = tempDir('dagent-fleet-control-');
  configHome = join(root.dir, 'config');
  mkdirSync(join(configHome, 'dagent'), { recursive: true });
  writeFileSync(join(configHome, 'dagent', 'config.json'), JSON.stringify({ mcpServers: { tracker: { command: process.execPath, args: [SERVER_SCRIPT] } } }));
});

afterAll(() => {
  killRunningClis();
  root?.cleanup();
});

describe.skipIf(postgresUrl === '')('a scheduler and a worker in separate processes', () => {
  it("replans missed work a worker's node reports, and the worker stops the run's MCP server when the run is over", async () => {
    const plan: Plan = {
      goal: 'Greet twice',
      rationale: 'Two looks, then the edit.',
      nodes: [look('look-1'), look('look-2'), edit('edit-a', 'src/a.txt', ['look-1', 'look-2'])],
    };
    const extra = edit('edit-b', 'src/b.txt', ['edit-a']);
    const run = await approvedSmallRun(postgresUrl, root.dir, 'missed-work', plan, {
      'node:look-1': [{ text: 'nothing to see' }],
      'node:look-2': [{ text: 'nothing either' }],
      'node:edit-a': [
        { toolCalls: [{ id: 'pid', name: 'tracker__pid', args: {} }] },
        { toolCalls: [{ id: 'report', name: 'report_missing_work', args: { title: 'Update b', files: ['src/b.txt'], reason: 'b says hello too' } }] },
        ...editTurns('edit-a', 'src/a.txt'),
      ],
      planner: [{ text: `b was left out.\n\n\`\`\`json\n${JSON.stringify({ nodes: [extra] })}\n\`\`\`` }],
      'node:edit-b': editTurns('edit-b', 'src/b.txt'),
    }, ['src/a.txt', 'src/b.txt']);
    const worker = startWorker(run);
    const scheduler = spawnCli(['run', run.runId, '--workers', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });

    const scheduled = await scheduler.exited;
    expect(scheduled.code, `${describeExit(scheduled)}\n---\n${worker.hasExited() ? describeExit(await worker.exited) : ''}`).toBe(0);
    expect(scheduled.stdout).toContain('plan v2 · 4/4 nodes succeeded · 1 replans');
    const log = await events(run);
    expect(log.find((event) => event.type === 'plan/amended')?.payload).toMatchObject({ version: 2, reason: 'replan (append): edit-a reported missed work: Update b' });
    expect(log.filter((event) => event.type === 'attempt/finished' && event.node_id === 'edit-b').map((event) => event.payload.outcome)).toEqual(['succeeded']);
    expect(readFileSync(join(run.workspace, 'src/b.txt'), 'utf8')).toBe('hello\nedited by edit-b\n');

    // The dashboard, attached to the run the worker executed, shows it as it shows a run of one process.
    const store = await openDatabase(run.url);
    try {
      const state = applyEvents(createDashboardState(emptyRunView(run.runId), { attached: true }), await readEvents(store.db, run.runId));
      const screen = renderScreen(state, { width: 100, height: 30 }, { color: false, now: Date.now() }).lines.map(plainText).join('\n');
      expect(screen).toContain(`dagent ${run.runId} · succeeded · plan v2`);
      expect(screen).toContain('4/4 nodes');
      expect(screen).toContain('1 replan');
      for (const id of ['look-1', 'look-2', 'edit-a', 'edit-b']) expect(screen).toMatch(new RegExp(`✓ ${id} `));
    } finally {
      await store.close();
    }

    // The MCP server the worker started for the run's nodes stops with the run; the worker goes on.
    const pidResult = log.find((event) => event.type === 'tool/result' && event.payload.name === 'tracker__pid');
    const pid = Number(/\n(\d+)\n/.exec(String(pidResult?.payload.content))?.[1]);
    expect(pid).toBeGreaterThan(0);
    for (let waited = 0; waited < 10_000 && isRunning(pid); waited += 50) await sleep(50);
    expect(isRunning(pid)).toBe(false);
    expect(worker.hasExited()).toBe(false);
    await stopWorker(worker);
  }, TIMEOUT_MS * 2);

  it.skipIf(!canRunElsewhere)('`dagent cancel` on another host stops the scheduler and aborts the node a worker is running', async () => {
    const plan: Plan = { goal: 'Wait', rationale: 'A slow node, then one after it.', nodes: [edit('slow', 'src/slow.txt'), edit('after', 'src/after.txt', ['slow'])] };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'cancel', plan, {
      'node:slow': [{ latencyMs: 90_000, text: 'too late' }],
      'node:after': editTurns('after', 'src/after.txt'),
    }, ['src/slow.txt', 'src/after.txt']);
    const worker = startWorker(run);
    const scheduler = spawnCli(['run', run.runId, '--workers', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    await until('the worker to start the slow node', async () => (await events(run)).some((event) => event.type === 'attempt/claimed'), TIMEOUT_MS / 2, [worker, scheduler]);

    const cancel = spawnCli(['cancel', run.runId, '--wait', '30', ...run.flags], run.workspace, { prefix: ELSEWHERE });
    const cancelled = await cancel.exited;
    expect(cancelled.code, describeExit(cancelled)).toBe(0);
    expect(cancelled.stdout).toContain(`run ${run.runId} cancelled; resume with: dagent resume ${run.runId}`);
    const scheduled = await scheduler.exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(1);
    expect(scheduled.stdout).toContain(`run ${run.runId} cancelled`);

    // The worker aborted the node at once (its model turn would have taken 90 s) and committed that as its outcome.
    await until('the slow node to be aborted on the worker', async () => (await events(run)).some((event) => event.type === 'attempt/finished'), 15_000, [worker]);
    const log = await events(run);
    expect(log.find((event) => event.type === 'run/cancelled')?.payload.reason).toMatch(/^cancel requested by pid \d+$/);
    expect(log.find((event) => event.type === 'attempt/finished')?.payload).toMatchObject({ outcome: 'failed' });
    expect(log.some((event) => event.type === 'node/started' && event.node_id === 'after')).toBe(false);
    expect(readFileSync(join(run.workspace, 'src/after.txt'), 'utf8')).toBe('hello\n');
    await stopWorker(worker);
  }, TIMEOUT_MS * 2);
});
