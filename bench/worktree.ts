import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventLog, FileSnapshots, RunWorkspaces, createRun, openDatabase } from '../engine/index.js';
import { generateRepository } from './snapshots.js';
import { median, printTable, verdict } from './lib/table.js';

const FILES = Number(process.env.DAGENT_BENCH_WORKTREE_FILES ?? 20_000);
const SAMPLES = 7;
const AT_ONCE = 32;
const READY_GOAL_MS = 1000;
const MERGE_GOAL_MS = 500;

/**
 * Node workspaces on a 20 000-file git repository: (a) a node's workspace ready (worktree added
 * and checked out, ignored folders linked), its change committed, and merged onto the run branch
 * after another node's merge (a real three-way merge), beside what `shared` pays per node (the
 * snapshot boundary before and the change found after); (b) 32 workspaces asked for at once.
 */
export async function runWorktreeBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-worktree-'));
  try {
    const repository = join(root, 'repo');
    generateRepository(repository, FILES);
    const isolated = await measureIsolated(repository);
    const shared = await measureShared(repository);
    printTable(
      `(a) per node on ${FILES.toLocaleString('en-US')} files (ms, p50 of ${SAMPLES})`,
      ['isolation', 'workspace ready', 'commit', 'merge', 'per node in all', 'goal', ''],
      [
        ['worktree', isolated.ready.toFixed(0), isolated.commit.toFixed(0), isolated.merge.toFixed(0), (isolated.ready + isolated.commit + isolated.merge).toFixed(0), `ready ≤ ${READY_GOAL_MS}, merge ≤ ${MERGE_GOAL_MS}`, verdict(isolated.ready <= READY_GOAL_MS && isolated.merge <= MERGE_GOAL_MS)],
        ['shared', shared.begin.toFixed(0), shared.end.toFixed(0), '—', (shared.begin + shared.end).toFixed(0), '', ''],
      ],
    );
    const atOnce = await measureAtOnce(repository);
    printTable(`(b) ${AT_ONCE} workspaces asked for at once`, ['ready', 'wall time', ''], [[`${atOnce.ready}/${AT_ONCE}`, `${(atOnce.ms / 1000).toFixed(1)} s`, verdict(atOnce.ready === AT_ONCE)]]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function measureIsolated(repository: string): Promise<{ ready: number; commit: number; merge: number }> {
  const workspaces = await RunWorkspaces.open({ repo: repository, runId: 'r-bench' });
  const ready: number[] = [];
  const commit: number[] = [];
  const merge: number[] = [];
  try {
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      // Two nodes from the same tip: the second merges after the first, three-way.
      let started = performance.now();
      const [first, second] = [await workspaces.openNode(`a${sample}`, 1), await workspaces.openNode(`b${sample}`, 1)];
      ready.push((performance.now() - started) / 2);
      writeFileSync(join(first.path, `src/d0/s0/f${sample}.ts`), `export const first = ${sample};\n`);
      writeFileSync(join(second.path, `src/d1/s0/f${1000 + sample}.ts`), `export const second = ${sample};\n`);
      await workspaces.merge((await first.commit(`a${sample}`))!, `a${sample}`);
      started = performance.now();
      const committed = (await second.commit(`b${sample}`))!;
      commit.push(performance.now() - started);
      started = performance.now();
      const outcome = await workspaces.merge(committed, `b${sample}`);
      merge.push(performance.now() - started);
      if (outcome.status !== 'merged') throw new Error(`bench merge ${sample}: ${outcome.status}`);
      await Promise.all([first.remove(), second.remove()]);
    }
  } finally {
    await workspaces.close();
  }
  return { ready: median(ready), commit: median(commit), merge: median(merge) };
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

async function measureAtOnce(repository: string): Promise<{ ready: number; ms: number }> {
  const workspaces = await RunWorkspaces.open({ repo: repository, runId: 'r-bench-32' });
  try {
    const started = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: AT_ONCE }, (_, index) => workspaces.openNode(`n${index}`, 1)));
    return { ready: outcomes.filter((outcome) => outcome.status === 'fulfilled').length, ms: performance.now() - started };
  } finally {
    await workspaces.close();
  }
}
