import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../helpers/cli-harness.js';
import { killRunningClis, spawnCli, workspaceContents, type CliProcess } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';
import { approvedRunOnNewDatabase, describeExit, gitInit, query, runStatus, until } from './fleet-harness.js';
import { createFleetFixture, writeFleetPlanAndScript, writeFleetWorkspace, type FleetFixture } from './fleet-fixture.js';

/**
 * A fleet on one PostgreSQL: a scheduler (`run --workers`) and three `dagent worker` processes run
 * the 60-node plan. One worker is killed with -9 mid-run, and so is the scheduler; a worker takes
 * the run over from the log. Every node succeeds exactly once, every committed outcome carries
 * the node's current token, and the files end as a single-process run leaves them.
 */

const postgresUrl = inject('postgresUrl');
const CLAIM_TTL_MS = 1_500;
/** Generous: the test machine may be shared and slow; a hang still fails. */
const STAGE_TIMEOUT_MS = 150_000;
const PROCESS_TIME_LIMIT_MS = 420_000;

let fixture: FleetFixture;
let root: { dir: string; cleanup: () => void };
let planFile: string;
let scriptFile: string;

const expectedFiles = (): Map<string, string> => new Map([...fixture.expectedFiles].sort(([a], [b]) => (a < b ? -1 : 1)));

interface Fleet {
  readonly workspace: string;
  readonly url: string;
  readonly runId: string;
  readonly flags: string[];
}

async function approvedRun(name: string, options: { git: boolean }): Promise<Fleet> {
  const workspace = join(root.dir, name);
  mkdirSync(workspace, { recursive: true });
  writeFleetWorkspace(fixture, workspace);
  if (options.git) gitInit(workspace);
  const { url, runId, flags } = await approvedRunOnNewDatabase(postgresUrl, workspace, planFile, scriptFile);
  return { workspace, url, runId, flags };
}

async function succeededCount(fleet: Fleet): Promise<number> {
  const [row] = await query<{ n: string }>(fleet.url, "SELECT count(*) AS n FROM events WHERE run_id = $1 AND type = 'node/succeeded'", [fleet.runId]);
  return Number(row?.n ?? 0);
}

/** Whether the process holds a claim whose attempt has not committed its outcome (`attempt/finished` with the claim's token). */
async function holdsAnUnfinishedNode(fleet: Fleet, pid: number | undefined): Promise<boolean> {
  const rows = await query<{ node_id: string }>(
    fleet.url,
    `SELECT c.node_id FROM node_claims c WHERE c.run_id = $1 AND c.pid = $2 AND c.released_at IS NULL AND NOT EXISTS (
       SELECT 1 FROM events e WHERE e.run_id = c.run_id AND e.node_id = c.node_id AND e.type = 'attempt/finished' AND (e.payload::jsonb ->> 'token')::int = c.token)`,
    [fleet.runId, pid],
  );
  return rows.length > 0;
}

/**
 * Kills the worker with -9 at a moment it holds a node it has not finished, so that node must run
 * again elsewhere: the worker is frozen (SIGSTOP) before it is looked at, so it cannot commit the
 * node between the look and the kill (a commit already sent when it froze is given time to land before
 * the look); frozen at a moment it holds none, it is let go on and tried again.
 */
async function killWhileHoldingANode(fleet: Fleet, worker: CliProcess, others: readonly CliProcess[]): Promise<void> {
  const pid = worker.child.pid;
  await until('the first worker to be frozen holding an unfinished node', async () => {
    worker.child.kill('SIGSTOP');
    // A commit the worker sent just before it froze still lands on the server: let it land first.
    await sleep(300);
    if (await holdsAnUnfinishedNode(fleet, pid)) return true;
    worker.child.kill('SIGCONT');
    await sleep(20);
    return false;
  }, STAGE_TIMEOUT_MS, others);
  worker.child.kill('SIGKILL');
}

async function runStatusOf(fleet: Fleet): Promise<string> {
  return runStatus(fleet.url, fleet.runId);
}

/** Every node succeeded once, and every committed outcome carried the token of the node's latest claim before it. */
async function expectExactlyOnce(fleet: Fleet): Promise<{ claims: Map<string, number> }> {
  const events = await query<{ seq: number; node_id: string | null; type: string; payload: string }>(fleet.url, 'SELECT seq, node_id, type, payload FROM events WHERE run_id = $1 ORDER BY seq', [fleet.runId]);
  const succeeded = new Map<string, number>();
  const latestToken = new Map<string, number>();
  const claims = new Map<string, number>();
  for (const event of events) {
    if (event.node_id === null) continue;
    const payload = JSON.parse(event.payload) as { token?: number };
    if (event.type === 'node/succeeded') succeeded.set(event.node_id, (succeeded.get(event.node_id) ?? 0) + 1);
    if (event.type === 'attempt/claimed') {
      expect(payload.token, `${event.node_id}: tokens grow with every claim`).toBeGreaterThan(latestToken.get(event.node_id) ?? 0);
      latestToken.set(event.node_id, payload.token!);
      claims.set(event.node_id, (claims.get(event.node_id) ?? 0) + 1);
    }
    if (event.type === 'attempt/finished') expect(payload.token, `${event.node_id}: a commit with a stale token (seq ${event.seq})`).toBe(latestToken.get(event.node_id));
  }
  expect(Object.fromEntries([...succeeded].sort())).toEqual(Object.fromEntries(fixture.plan.nodes.map((node) => node.id).sort().map((id) => [id, 1])));
  expect(events.filter((event) => event.type === 'run/succeeded')).toHaveLength(1);
  return { claims };
}

beforeAll(() => {
  fixture = createFleetFixture();
  root = tempDir('dagent-fleet-');
  ({ planFile, scriptFile } = writeFleetPlanAndScript(fixture, join(root.dir, 'fixture')));
});

afterAll(() => {
  killRunningClis();
  root?.cleanup();
});

describe.skipIf(postgresUrl === '')('a fleet of worker processes on one PostgreSQL', () => {
  it('60 nodes, three workers, one worker and the scheduler killed with -9: every node succeeds exactly once', async () => {
    const fleet = await approvedRun('shared', { git: false });
    const workerArgs = ['worker', '--concurrency', '2', '--claim-ttl', String(CLAIM_TTL_MS), '--adopt-every', '500', ...fleet.flags];
    const workers = [0, 1, 2].map(() => spawnCli(workerArgs, fleet.workspace, { timeLimitMs: PROCESS_TIME_LIMIT_MS }));
    const scheduler = spawnCli(['run', fleet.runId, '--workers', ...fleet.flags], fleet.workspace, { timeLimitMs: PROCESS_TIME_LIMIT_MS });
    const everyone = [...workers, scheduler];

    // Killed while it holds a node it has not finished: that node must run again elsewhere.
    await until('15 nodes to succeed', async () => (await succeededCount(fleet)) >= 15, STAGE_TIMEOUT_MS, everyone);
    await killWhileHoldingANode(fleet, workers[0]!, everyone);
    await until('35 nodes to succeed', async () => (await succeededCount(fleet)) >= 35, STAGE_TIMEOUT_MS, everyone);
    scheduler.child.kill('SIGKILL');
    expect((await scheduler.exited).signal).toBe('SIGKILL');
    await until('the run to succeed under a worker that adopted it', async () => (await runStatusOf(fleet)) === 'succeeded', STAGE_TIMEOUT_MS, everyone);

    for (const worker of workers.slice(1)) worker.child.kill('SIGTERM');
    const exits = await Promise.all(workers.slice(1).map((worker) => worker.exited));
    for (const exit of exits) expect(exit.code, describeExit(exit)).toBe(0);
    expect(exits.some((exit) => exit.stdout.includes('has lost its scheduler; taking it over')), exits.map(describeExit).join('\n---\n')).toBe(true);
    const { claims } = await expectExactlyOnce(fleet);
    // The killed worker's nodes were claimed again (next token) and ran from their beginning.
    expect([...claims.values()].some((count) => count >= 2), 'a node claimed twice').toBe(true);
    expect(workspaceContents(fleet.workspace)).toEqual(expectedFiles());
  }, 480_000);

  it('clone mode: three workers in three clones, a worker and the scheduler killed; the workspace ends byte-equal to a single-process run', async () => {
    const reference = join(root.dir, 'single-process');
    mkdirSync(reference, { recursive: true });
    writeFleetWorkspace(fixture, reference);
    gitInit(reference);
    // The nodes share its working copy, as the fleet's workers do theirs (isolating each of the 60
    // edits in a worktree of its own would make this run, beside the fleet, the test's longest part).
    mkdirSync(join(reference, '.dagent'));
    writeFileSync(join(reference, '.dagent', 'config.json'), JSON.stringify({ isolation: 'shared' }));
    // The single-process run goes on beside the fleet; it is compared with at the end.
    const single = spawnCli(['plan', '--from', planFile, '--yes', '--model', `scripted:${scriptFile}`, '--approval', 'auto'], reference, { timeLimitMs: PROCESS_TIME_LIMIT_MS });

    const fleet = await approvedRun('cloned', { git: true });
    const clones = [1, 2, 3].map((index) => {
      const clone = join(root.dir, `clone-${index}`);
      execFileSync('git', ['clone', '-q', fleet.workspace, clone], { stdio: 'ignore' });
      return clone;
    });
    const workerArgs = (clone: string): string[] => ['worker', '--clone', clone, '--claim-ttl', String(CLAIM_TTL_MS), '--adopt-every', '500', ...fleet.flags];
    const workers = clones.map((clone) => spawnCli(workerArgs(clone), clone, { timeLimitMs: PROCESS_TIME_LIMIT_MS }));
    const scheduler = spawnCli(['run', fleet.runId, '--workers', '--clone', ...fleet.flags], fleet.workspace, { timeLimitMs: PROCESS_TIME_LIMIT_MS });
    const everyone = [...workers, scheduler];

    // Killed while it holds a node it has not finished: that node must run again elsewhere.
    await until('15 nodes to succeed', async () => (await succeededCount(fleet)) >= 15, STAGE_TIMEOUT_MS, everyone);
    await killWhileHoldingANode(fleet, workers[0]!, everyone);
    await until('35 nodes to succeed', async () => (await succeededCount(fleet)) >= 35, STAGE_TIMEOUT_MS, everyone);
    scheduler.child.kill('SIGKILL');
    await scheduler.exited;
    await until('the run to succeed under a worker that adopted it', async () => (await runStatusOf(fleet)) === 'succeeded', STAGE_TIMEOUT_MS, everyone);
    for (const worker of workers.slice(1)) worker.child.kill('SIGTERM');
    for (const exit of await Promise.all(workers.slice(1).map((worker) => worker.exited))) expect(exit.code, describeExit(exit)).toBe(0);

    await expectExactlyOnce(fleet);
    const singleExit = await single.exited;
    expect(singleExit.code, describeExit(singleExit)).toBe(0);
    expect(workspaceContents(fleet.workspace)).toEqual(workspaceContents(reference));
    expect(workspaceContents(fleet.workspace)).toEqual(expectedFiles());
    // diff works as in shared mode: each node's change is recorded against the user's workspace.
    const diff = await runCli(['diff', fleet.runId, '--node', 'b07', ...fleet.flags], { cwd: fleet.workspace });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+step b07');
    // revert too: one node's change, then the whole run's, from the rows the patches were recorded with.
    const revertNode = await runCli(['revert', fleet.runId, '--node', 'c07', ...fleet.flags], { cwd: fleet.workspace });
    expect(revertNode.code, revertNode.stderr).toBe(0);
    const withoutC07 = expectedFiles();
    withoutC07.set('src/f07.txt', withoutC07.get('src/f07.txt')!.replace('closed by c07\n', ''));
    expect(workspaceContents(fleet.workspace)).toEqual(withoutC07);
    // --force: src/f07.txt was changed since the run (by the node's revert just above).
    const revertRun = await runCli(['revert', fleet.runId, '--force', ...fleet.flags], { cwd: fleet.workspace });
    expect(revertRun.code, revertRun.stderr).toBe(0);
    expect(workspaceContents(fleet.workspace)).toEqual(new Map([...fixture.initialFiles].sort(([x], [y]) => (x < y ? -1 : 1))));
  }, 480_000);
});
