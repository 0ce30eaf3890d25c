import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventLog, FileSnapshots, RunWorkspaces, createRun, openDatabase, type NodeWorkspace } from '../engine/index.js';
import { generateRepository } from './snapshots.js';
import { median, printTable, verdict } from './lib/table.js';

const FILES = Number(process.env.DAGENT_BENCH_WORKTREE_FILES ?? 20_000);
const SAMPLES = 7;
const AT_ONCE = 32;
const READY_GOAL_MS = 1000;
const MERGE_GOAL_MS = 500;

/**
 * Node workspaces on a 20 000-file git repository: (a) a node's workspace ready, cold (a fresh
 * worktree: added, checked out, ignored folders linked) and reused (a worktree an earlier node of
 * the run left, moved to the node's folder and reset to its commit: only the files that differ are
 * written), its change committed, and merged onto the run branch after another node's merge (a
 * real three-way merge), beside what `shared` pays per node (the snapshot boundary before and the
 * change found after); (b) 32 workspaces asked for at once, cold, then again from the worktrees
 * the first 32 left.
 */
export async function runWorktreeBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-worktree-'));
  try {
    const repository = join(root, 'repo');
    generateRepository(repository, FILES);
    const isolated = await measureIsolated(repository);
    const shared = await measureShared(repository);
    const perNode = (ready: number): string => (ready + isolated.commit + isolated.merge).toFixed(0);
    const met = (ready: number): string => verdict(ready <= READY_GOAL_MS && isolated.merge <= MERGE_GOAL_MS);
    printTable(
      `(a) per node on ${FILES.toLocaleString('en-US')} files (ms, p50 of ${SAMPLES}; commit and merge over both kinds)`,
      ['isolation', 'workspace ready', 'commit', 'merge', 'per node in all', 'goal', ''],
      [
        ['worktree, cold (a fresh worktree)', isolated.cold.toFixed(0), isolated.commit.toFixed(0), isolated.merge.toFixed(0), perNode(isolated.cold), `ready ≤ ${READY_GOAL_MS}, merge ≤ ${MERGE_GOAL_MS}`, met(isolated.cold)],
        ['worktree, reused (an earlier node\'s)', isolated.reused.toFixed(0), isolated.commit.toFixed(0), isolated.merge.toFixed(0), perNode(isolated.reused), `ready ≤ ${READY_GOAL_MS}, merge ≤ ${MERGE_GOAL_MS}`, met(isolated.reused)],
        ['shared', shared.begin.toFixed(0), shared.end.toFixed(0), '—', (shared.begin + shared.end).toFixed(0), '', ''],
      ],
    );
    const atOnce = await measureAtOnce(repository);
    printTable(
      `(b) ${AT_ONCE} workspaces asked for at once`,
      ['worktrees', 'ready', 'wall time', ''],
      atOnce.map((round) => [round.kind, `${round.ready}/${AT_ONCE}`, `${(round.ms / 1000).toFixed(1)} s`, verdict(round.ready === AT_ONCE)]),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `SAMPLES` pairs of nodes from fresh worktrees (kept open, so the next pair finds none to
 * reuse), then, all of them released, `SAMPLES` pairs from those worktrees. Each pair starts from
 * the same tip: the second node merges after the first, three-way.
 */
async function measureIsolated(repository: string): Promise<{ cold: number; reused: number; commit: number; merge: number }> {
  const workspaces = await RunWorkspaces.open({ repo: repository, runId: 'r-bench' });
  const ready = { cold: [] as number[], reused: [] as number[] };
  const commit: number[] = [];
  const merge: number[] = [];
  const left: NodeWorkspace[] = [];
  try {
    for (const kind of ['cold', 'reused'] as const) {
      if (kind === 'reused') await Promise.all(left.splice(0).map((node) => node.remove()));
      for (let sample = 0; sample < SAMPLES; sample += 1) {
        let started = performance.now();
        const [first, second] = [await workspaces.openNode(`${kind}-a${sample}`), await workspaces.openNode(`${kind}-b${sample}`)];
        ready[kind].push((performance.now() - started) / 2);
        writeFileSync(join(first.path, `src/d0/s0/f-${kind}-${sample}.ts`), `export const first = ${sample};\n`);
        writeFileSync(join(second.path, `src/d1/s0/f-${kind}-${sample}.ts`), `export const second = ${sample};\n`);
        await workspaces.merge((await first.commit(`a${sample}`))!, `a${sample}`);
        started = performance.now();
        const committed = (await second.commit(`b${sample}`))!;
        commit.push(performance.now() - started);
        started = performance.now();
        const outcome = await workspaces.merge(committed, `b${sample}`);
        merge.push(performance.now() - started);
        if (outcome.status !== 'merged') throw new Error(`bench merge ${kind} ${sample}: ${outcome.status}`);
        if (kind === 'cold') left.push(first, second);
        else await Promise.all([first.remove(), second.remove()]);
      }
    }
  } finally {
    await workspaces.close();
  }
  return { cold: median(ready.cold), reused: median(ready.reused), commit: median(commit), merge: median(merge) };
}

async function measureShared(repository: string): Promise<{ begin: number; end: number }> {
  const store = await openDatabase(join(repository, '.dagent', 'bench.db'));
  const { db } = store;
  const run = await createRun(db, { task: 'bench', workspace: repository, mode: 'plan' });
  const log = new EventLog(db, run.id);
  const files = new FileSnapshots({ db, runId: run.id, workspace: repository });
  const begin: number[] = [];
  const end: number[] = [];
  try {
    await files.endNode('warm', [], await files.beginNode('warm', []));
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      await log.append({ type: 'node/started', nodeId: `n${sample}`, payload: { attempt: 1 } });
      let started = performance.now();
      const boundary = await files.beginNode(`n${sample}`, []);
      begin.push(performance.now() - started);
      writeFileSync(join(repository, `src/d2/s0/f${2000 + sample}.ts`), `export const shared = ${sample};\n`);
      started = performance.now();
      await files.endNode(`n${sample}`, [], boundary);
      end.push(performance.now() - started);
    }
  } finally {
    await files.close();
    await store.close();
  }
  return { begin: median(begin), end: median(end) };
}

async function measureAtOnce(repository: string): Promise<{ kind: string; ready: number; ms: number }[]> {
  const workspaces = await RunWorkspaces.open({ repo: repository, runId: 'r-bench-32' });
  const rounds: { kind: string; ready: number; ms: number }[] = [];
  try {
    for (const kind of ['cold (fresh)', 'reused (the first 32 released)']) {
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: AT_ONCE }, (_, index) => workspaces.openNode(`n${index}`)));
      rounds.push({ kind, ready: outcomes.filter((outcome) => outcome.status === 'fulfilled').length, ms: performance.now() - started });
      await Promise.all(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.remove() : undefined)));
    }
  } finally {
    await workspaces.close();
  }
  return rounds;
}
