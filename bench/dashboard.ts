import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun, openDatabase, runLog, type EventDraft } from '../engine/index.js';
import { startBenchPostgres } from './lib/postgres-server.js';
import { printTable, verdict } from './lib/table.js';

/** The scripted run: 200 nodes, about 50 events a second. */
const NODES = 200;
const EVENTS_PER_SECOND = 50;
const STREAM_SECONDS = 20;
const CPU_GOAL = 0.1;
const P95_GOAL_MS = 250;

interface StoreResult {
  readonly appended: number;
  readonly seconds: number;
  readonly cpuShare: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/**
 * `npm run bench -- dashboard`: a 200-node run appends ~50 events/s while `dagent dashboard`'s
 * code runs attached from a second process, once on SQLite (the follower polls `data_version`) and
 * once on PostgreSQL (it listens for NOTIFY). Reports that process's CPU as a share of one core
 * and the latency from append to screen, per store, side by side.
 */
export async function runDashboardBench(): Promise<void> {
  const results: [string, StoreResult][] = [];
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-dashboard-'));
  try {
    results.push(['SQLite', await measure(join(dir, 'dagent.db'), dir)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const server = await startBenchPostgres();
  const pgDir = mkdtempSync(join(tmpdir(), 'dagent-bench-dashboard-'));
  try {
    results.push(['PostgreSQL', await measure(await server.database('bench_dashboard'), pgDir)]);
  } finally {
    server.stop();
    rmSync(pgDir, { recursive: true, force: true });
  }
  const row = (label: string, value: (result: StoreResult) => string, goal = '', met?: (result: StoreResult) => boolean): string[] => [
    label,
    ...results.map(([, result]) => value(result)),
    goal,
    met === undefined ? '' : results.map(([name, result]) => `${name} ${verdict(met(result))}`).join(', '),
  ];
  printTable(
    `A ${NODES}-node run at ~${EVENTS_PER_SECOND} events/s for ${STREAM_SECONDS} s, the dashboard attached from a second process (one run per store)`,
    ['measure', ...results.map(([name]) => name), 'goal', 'verdict'],
    [
      row('events appended', (result) => `${result.appended} in ${result.seconds.toFixed(1)} s`, `~${EVENTS_PER_SECOND}/s`),
      row('dashboard CPU, share of one core', (result) => `${(result.cpuShare * 100).toFixed(1)} %`, `≤ ${CPU_GOAL * 100} %`, (result) => result.cpuShare <= CPU_GOAL),
      row('append → screen p50', (result) => `${result.p50} ms`),
      row('append → screen p95', (result) => `${result.p95} ms`, `≤ ${P95_GOAL_MS} ms`, (result) => result.p95 <= P95_GOAL_MS),
      row('append → screen max', (result) => `${result.max} ms`),
    ],
  );
}

/** One store: the run appended here, the dashboard attached from a child process to the same store. */
async function measure(url: string, workspace: string): Promise<StoreResult> {
  const store = await openDatabase(url);
  try {
    const run = await createRun(store.db, { task: 'a scripted 200-node run', workspace, mode: 'plan' });
    const log = runLog(store.db, run.id);
    const nodes = Array.from({ length: NODES }, (_, index) => ({ id: `n${String(index).padStart(3, '0')}`, kind: 'edit', title: `node ${index}`, dependsOn: index < 20 ? [] : [`n${String(index - 20).padStart(3, '0')}`] }));
    await log.append({ type: 'plan/created', payload: { version: 1, plan: { goal: 'bench', rationale: 'bench', nodes }, hash: 'bench' } });
    await log.append({ type: 'run/started', payload: { pid: process.pid, planVersion: 1 } });

    const attach = join(dirname(fileURLToPath(import.meta.url)), 'dashboard-attach.js');
    const child = spawn(process.execPath, [attach, url, run.id, workspace], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const attached = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), out.includes('attached') && resolve())));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await attached;

    const drafts = scriptedEvents(nodes.map((node) => node.id), EVENTS_PER_SECOND * STREAM_SECONDS);
    const started = Date.now();
    for (let index = 0; index < drafts.length; index += 1) {
      const due = started + (index * 1000) / EVENTS_PER_SECOND;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await log.append(drafts[index]!);
    }
    await log.append({ type: 'run/succeeded', payload: {} });
    const seconds = (Date.now() - started) / 1000;
    await exited;
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { cpuMs: number; wallMs: number; events: number; p50: number; p95: number; max: number };
    return { appended: drafts.length + 1, seconds, cpuShare: result.cpuMs / result.wallMs, p50: result.p50, p95: result.p95, max: result.max };
  } finally {
    await store.close();
  }
}

/** A node's life, over and over: started, a request, streamed text, an answer with usage and a tool call, the result, succeeded. */
function scriptedEvents(nodeIds: readonly string[], count: number): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (let index = 0; drafts.length < count; index += 1) {
    const nodeId = nodeIds[index % nodeIds.length]!;
    drafts.push(
      { type: 'node/started', nodeId, payload: { attempt: 1 } },
      { type: 'request/context', nodeId, payload: { messageSeqs: [], estimatedTokens: 3000 + (index % 40) * 100, surfaceGeneration: 0, compactionThresholdTokens: 6250 } },
      { type: 'text/streamed', nodeId, payload: { text: 'Reading the file ' } },
      {
        type: 'assistant/message',
        nodeId,
        payload: { content: 'Reading the file.', toolCalls: [{ id: `c${index}`, name: 'read_file', args: { path: `src/f${index}.ts` } }], finishReason: 'tool-calls', provider: 'scripted', model: 'bench', usage: { input: 3000, output: 60, cacheHit: 2400, reasoning: 0 }, costUsd: 0 },
      },
      { type: 'tool/result', nodeId, payload: { toolCallId: `c${index}`, name: 'read_file', content: 'export const x = 1;', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 20 } } },
      { type: 'node/succeeded', nodeId, payload: { result: 'done' } },
    );
  }
  return drafts.slice(0, count);
}
