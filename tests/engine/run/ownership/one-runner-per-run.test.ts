import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli-harness.js';
import { createCrashFixture, writeCrashPlanAndScript, writeCrashWorkspace, type CrashFixture } from '../../../helpers/crash-fixture.js';
import { killRunningClis, spawnCli, workspaceContents, type CliExit } from '../../../helpers/crash-process.js';
import { tempDir } from '../../../helpers/temp-store.js';

/**
 * Two terminals, one run: two real `dagent run R` processes started at the same moment on one
 * SQLite file. The claim is one write transaction, so exactly one runs the 30 nodes; the other is
 * refused with the owner's pid, or with `--wait` waits for it and reports its outcome.
 */

let fixture: CrashFixture;
let root: { dir: string; cleanup: () => void };
let planFile: string;
let scriptFile: string;

const flags = (): string[] => ['--model', `scripted:${scriptFile}`, '--approval', 'auto'];

async function approvedRun(name: string): Promise<{ workspace: string; runId: string }> {
  const workspace = join(root.dir, name);
  mkdirSync(workspace, { recursive: true });
  writeCrashWorkspace(fixture, workspace);
  const created = await runCli(['plan', '--from', planFile, '--json', ...flags()], { cwd: workspace });
  expect(created.code, created.stderr).toBe(0);
  const runId = (JSON.parse(created.stdout) as { runId: string }).runId;
  expect((await runCli(['approve', runId], { cwd: workspace })).code).toBe(0);
  return { workspace, runId };
}

function succeededPerNode(workspace: string, runId: string): Record<string, number> {
  const db = new BetterSqlite3(join(workspace, '.dagent', 'dagent.db'), { readonly: true });
  try {
    const rows = db.prepare<[string], { node_id: string; n: number }>("SELECT node_id, count(*) AS n FROM events WHERE run_id = ? AND type = 'node/succeeded' GROUP BY node_id ORDER BY node_id").all(runId);
    return Object.fromEntries(rows.map((row) => [row.node_id, row.n]));
  } finally {
    db.close();
  }
}

const expectedOnce = (): Record<string, number> => Object.fromEntries(fixture.plan.nodes.map((node) => node.id).sort().map((id) => [id, 1]));
const describeExit = (exit: CliExit): string => `exit ${exit.code ?? exit.signal}\n${exit.stdout.slice(-2000)}\n${exit.stderr.slice(-2000)}`;

beforeAll(() => {
  fixture = createCrashFixture();
  root = tempDir('dagent-one-runner-');
  ({ planFile, scriptFile } = writeCrashPlanAndScript(fixture, join(root.dir, 'fixture')));
});

afterAll(() => {
  killRunningClis();
  root?.cleanup();
});

describe('two `dagent run` of one run started at the same moment', () => {
  it('exactly one runs; the other is refused with its pid (exit 2, one line), and every node succeeds once', async () => {
    const { workspace, runId } = await approvedRun('refused');
    const [first, second] = [spawnCli(['run', runId, ...flags()], workspace), spawnCli(['run', runId, ...flags()], workspace)];
    const exits = await Promise.all([first.exited, second.exited]);
    const ran = exits.filter((exit) => exit.code === 0);
    const refused = exits.filter((exit) => exit.code === 2);
    expect(ran, exits.map(describeExit).join('\n---\n')).toHaveLength(1);
    expect(refused, exits.map(describeExit).join('\n---\n')).toHaveLength(1);
    const winnerPid = exits[0]!.code === 0 ? first.child.pid : second.child.pid;
    expect(refused[0]!.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused[0]!.stderr).toContain(`is already running (pid ${winnerPid})`);
    expect(succeededPerNode(workspace, runId)).toEqual(expectedOnce());
    expect(workspaceContents(workspace)).toEqual(new Map([...fixture.expectedFiles].sort(([a], [b]) => (a < b ? -1 : 1))));
  }, 120_000);

  it('with --wait the second waits for the first and reports its success without running a node', async () => {
    const { workspace, runId } = await approvedRun('waits');
    const [first, second] = [spawnCli(['run', runId, '--wait', ...flags()], workspace), spawnCli(['run', runId, '--wait', ...flags()], workspace)];
    const exits = await Promise.all([first.exited, second.exited]);
    expect(exits.map((exit) => exit.code), exits.map(describeExit).join('\n---\n')).toEqual([0, 0]);
    const waiter = exits.find((exit) => exit.stdout.includes('in the process this one waited for'));
    expect(waiter, exits.map(describeExit).join('\n---\n')).toBeDefined();
    expect(waiter!.stderr).toMatch(/is running in pid \d+ on .*: waiting for it to end/);
    expect(succeededPerNode(workspace, runId)).toEqual(expectedOnce());
  }, 120_000);
});
