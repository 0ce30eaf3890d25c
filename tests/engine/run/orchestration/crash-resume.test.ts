import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli-harness.js';
import { createCrashFixture, seededRandom, writeCrashPlanAndScript, writeCrashWorkspace, type CrashFixture } from '../../../helpers/crash-fixture.js';
import { EventCounter, killAtEventCount, killRunningClis, spawnCli, workspaceContents, workspaceDifferences, type CliExit } from '../../../helpers/crash-process.js';
import { tempDir } from '../../../helpers/temp-store.js';

/**
 * SPEC §2.4: every state change is persisted, so `kill -9` at any moment followed by `dagent
 * resume` finishes the run without re-running succeeded nodes. A real CLI process runs a 30-node
 * scripted plan against a real SQLite file and is killed at random moments (a random event count
 * of its log, plus a random few ms, so kills land mid-turn, mid-tool and between nodes); `resume`
 * (itself killed once in some cases) finishes the run. Half the cases run in a git workspace
 * shared by the nodes (boundaries are git trees), half in a plain folder (boundaries are write-set scans).
 *
 * The kill moments come from one seed, printed with every failure; `DAGENT_CRASH_SEED=N` repeats
 * them. `DAGENT_BIN` points the test at another build of `bin/dagent.js`.
 */

const SEED = process.env.DAGENT_CRASH_SEED === undefined ? randomInt(1, 2 ** 31) : Number(process.env.DAGENT_CRASH_SEED);
const CASES = 10;
/** Cases whose first `resume` is killed too. */
const KILL_RESUME_TOO = new Set([1, 4, 7]);
/** Kills land up to this long after the target event count. */
const MAX_EXTRA_DELAY_MS = 25;
const MAX_RESUMES = 4;
const CASE_TIMEOUT_MS = 120_000;

type WorkspaceKind = 'git' | 'plain';

interface EventRow {
  readonly seq: number;
  readonly node_id: string | null;
  readonly type: string;
}

interface Reference {
  readonly files: Map<string, string>;
  /** Events of a run created, approved and started: the first possible kill point. */
  readonly startedAt: number;
  /** Events up to the check node's start: the last kill point (check.mjs still has to run). */
  readonly checkStartedAt: number;
}

let fixture: CrashFixture;
let root: { dir: string; cleanup: () => void };
let planFile: string;
let scriptFile: string;
const references = new Map<WorkspaceKind, Reference>();

function cliFlags(): string[] {
  return ['--model', `scripted:${scriptFile}`, '--approval', 'auto'];
}

function newWorkspace(name: string, kind: WorkspaceKind): string {
  const workspace = join(root.dir, name);
  mkdirSync(workspace, { recursive: true });
  writeCrashWorkspace(fixture, workspace);
  if (kind === 'git') {
    const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=dagent test', '-c', 'user.email=test@dagent.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'before the run');
    // Git trees as the shared working copy's boundaries: `isolation: shared`, since a git repository's default is a worktree per node.
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'shared' }));
  }
  return workspace;
}

function databaseOf(workspace: string): string {
  return join(workspace, '.dagent', 'dagent.db');
}

function readLog(workspace: string, runId: string): { events: EventRow[]; runStatus: string; nodes: { node_id: string; status: string; attempts: number }[] } {
  const db = new BetterSqlite3(databaseOf(workspace), { readonly: true, fileMustExist: true });
  try {
    const events = db.prepare<[string], EventRow>('SELECT seq, node_id, type FROM events WHERE run_id = ? ORDER BY seq').all(runId);
    const runStatus = db.prepare<[string], { status: string }>('SELECT status FROM runs WHERE id = ?').get(runId)?.status ?? 'missing';
    const nodes = db.prepare<[string], { node_id: string; status: string; attempts: number }>('SELECT node_id, status, attempts FROM nodes WHERE run_id = ? ORDER BY node_id').all(runId);
    return { events, runStatus, nodes };
  } finally {
    db.close();
  }
}

function onlyRunId(workspace: string): string {
  const db = new BetterSqlite3(databaseOf(workspace), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare<[], { id: string }>('SELECT id FROM runs').all();
    if (rows.length !== 1) throw new Error(`expected one run in ${workspace}, found ${rows.length}`);
    return rows[0]!.id;
  } finally {
    db.close();
  }
}

function describeExit(exit: CliExit): string {
  return `${exit.timedOut ? 'killed after its time limit' : `exit ${exit.code ?? exit.signal}`}\n--- stdout ---\n${exit.stdout.slice(-4000)}\n--- stderr ---\n${exit.stderr.slice(-4000)}`;
}

/** Every assertion of a finished run: succeeded, each node succeeded once and never started again, seqs 1..N, `status --json` agrees. */
async function expectFinishedRun(workspace: string, runId: string, why: string): Promise<void> {
  const { events, runStatus, nodes } = readLog(workspace, runId);
  const planIds = fixture.plan.nodes.map((node) => node.id).sort();
  expect(runStatus, `${why}: run status`).toBe('succeeded');
  expect(
    events.map((event) => event.seq),
    `${why}: event seqs are 1..N without gaps`,
  ).toEqual(events.map((_, index) => index + 1));
  const succeeded = new Map<string, number>();
  for (const event of events) {
    if (event.node_id === null) continue;
    if (event.type === 'node/succeeded') succeeded.set(event.node_id, (succeeded.get(event.node_id) ?? 0) + 1);
    if (event.type === 'node/started' && succeeded.has(event.node_id)) throw new Error(`${why}: node ${event.node_id} started again (seq ${event.seq}) after it had succeeded`);
  }
  expect(Object.fromEntries([...succeeded].sort()), `${why}: one node/succeeded per node`).toEqual(Object.fromEntries(planIds.map((id) => [id, 1])));
  expect(events.filter((event) => event.type === 'run/succeeded'), `${why}: one run/succeeded`).toHaveLength(1);
  expect(nodes.map((node) => [node.node_id, node.status]), `${why}: the nodes table`).toEqual(planIds.map((id) => [id, 'succeeded']));

  const status = await runCli(['status', runId, '--json'], { cwd: workspace });
  expect(status.code, `${why}: dagent status --json\n${status.stderr}`).toBe(0);
  const document = JSON.parse(status.stdout) as { run: { id: string; status: string }; nodes: { id: string; status: string; attempts: number }[] };
  expect(document.run, `${why}: status --json run`).toMatchObject({ id: runId, status: 'succeeded' });
  const byId = new Map(nodes.map((node) => [node.node_id, node]));
  expect(
    document.nodes.map((node) => [node.id, node.status, node.attempts]).sort(),
    `${why}: status --json nodes agree with the nodes table`,
  ).toEqual(planIds.map((id) => [id, 'succeeded', byId.get(id)?.attempts]));
}

/** The run without crashes: `plan --from FILE --yes` in a fresh workspace. */
async function referenceRun(kind: WorkspaceKind): Promise<Reference> {
  const workspace = newWorkspace(`reference-${kind}`, kind);
  const exit = await spawnCli(['plan', '--from', planFile, '--yes', ...cliFlags()], workspace).exited;
  expect(exit.code, `reference run (${kind}): ${describeExit(exit)}`).toBe(0);
  const runId = onlyRunId(workspace);
  await expectFinishedRun(workspace, runId, `reference run (${kind})`);
  const { events } = readLog(workspace, runId);
  const startedAt = events.findIndex((event) => event.type === 'run/started') + 1;
  const checkStartedAt = events.findIndex((event) => event.type === 'node/started' && event.node_id === 'check') + 1;
  return { files: workspaceContents(workspace), startedAt, checkStartedAt };
}

beforeAll(async () => {
  process.stdout.write(`crash test seed ${SEED} (DAGENT_CRASH_SEED=${SEED} repeats its kill moments)\n`);
  fixture = createCrashFixture();
  root = tempDir('dagent-crash-');
  ({ planFile, scriptFile } = writeCrashPlanAndScript(fixture, join(root.dir, 'fixture')));
  for (const kind of ['git', 'plain'] as const) references.set(kind, await referenceRun(kind));
}, 2 * CASE_TIMEOUT_MS);

afterAll(() => {
  killRunningClis();
  root?.cleanup();
});

describe('kill -9 of a spawned CLI, then dagent resume', () => {
  it('the reference runs (git and plain) end with every file as check.mjs expects', () => {
    for (const [kind, reference] of references) {
      expect(reference.files, `reference run (${kind})`).toEqual(new Map([...fixture.expectedFiles].sort(([a], [b]) => (a < b ? -1 : 1))));
      expect(reference.checkStartedAt, `reference run (${kind})`).toBeGreaterThan(reference.startedAt);
    }
  });

  for (let index = 0; index < CASES; index += 1) {
    const kind: WorkspaceKind = index % 2 === 0 ? 'git' : 'plain';
    it(`crash case ${index + 1} (${kind} workspace${KILL_RESUME_TOO.has(index) ? ', the resume killed too' : ''})`, async () => {
      const random = seededRandom(SEED + index * 7919);
      const reference = references.get(kind)!;
      const why = `seed ${SEED}, case ${index + 1} (${kind})`;
      const workspace = newWorkspace(`case-${index + 1}`, kind);
      const created = await runCli(['plan', '--from', planFile, '--json', ...cliFlags()], { cwd: workspace });
      expect(created.code, `${why}: plan --from\n${created.stderr}`).toBe(0);
      const runId = (JSON.parse(created.stdout) as { runId: string }).runId;
      const approved = await runCli(['approve', runId], { cwd: workspace });
      expect(approved.code, `${why}: approve\n${approved.stderr}`).toBe(0);

      const counter = new EventCounter(databaseOf(workspace));
      const kills: string[] = [];
      try {
        // Offsets from the reference run: between its run/started and its check node's start.
        const before = counter.count(runId);
        const span = reference.checkStartedAt - reference.startedAt;
        const firstTarget = before + 1 + Math.floor(random() * span);
        const first = await killAtEventCount(spawnCli(['run', runId, ...cliFlags()], workspace), counter, runId, firstTarget, Math.floor(random() * MAX_EXTRA_DELAY_MS));
        if (!first.killed) throw new Error(`${why}: the run ended before its kill at event ${firstTarget}: ${describeExit(first.exit)}`);
        kills.push(`run killed at event ${first.atEvents}`);

        if (KILL_RESUME_TOO.has(index)) {
          const done = first.atEvents - before;
          const target = first.atEvents + 1 + Math.floor(random() * Math.max(1, span - done));
          const second = await killAtEventCount(spawnCli(['resume', runId, ...cliFlags()], workspace), counter, runId, target, Math.floor(random() * MAX_EXTRA_DELAY_MS));
          if (second.killed) kills.push(`resume killed at event ${second.atEvents}`);
          else expect(second.exit.code, `${why}: a resume that ended before its kill: ${describeExit(second.exit)}`).toBe(0);
        }

        for (let resumes = 0; readLog(workspace, runId).runStatus !== 'succeeded'; resumes += 1) {
          if (resumes === MAX_RESUMES) throw new Error(`${why}: the run did not succeed after ${MAX_RESUMES} resumes (${kills.join(', ')})`);
          const exit = await spawnCli(['resume', runId, ...cliFlags()], workspace).exited;
          if (exit.code !== 0) {
            const differences = workspaceDifferences(workspaceContents(workspace), reference.files);
            throw new Error(`${why}: resume after ${kills.join(', ')} failed; the workspace against the reference run's:\n${differences}\n${describeExit(exit)}`);
          }
        }
      } finally {
        counter.close();
      }

      await expectFinishedRun(workspace, runId, `${why}, ${kills.join(', ')}`);
      const files = workspaceContents(workspace);
      expect(files, `${why}, ${kills.join(', ')}: the workspace against the reference run's:\n${workspaceDifferences(files, reference.files)}`).toEqual(reference.files);
    }, CASE_TIMEOUT_MS);
  }
});
