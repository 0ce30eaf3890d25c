import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun, openDatabase, runLog, type EventDraft } from '../engine/index.js';

/** The scripted run: 200 nodes, about 50 events a second. */
const NODES = 200;
const EVENTS_PER_SECOND = 50;
const STREAM_SECONDS = 20;
const CPU_GOAL = 0.1;
const P95_GOAL_MS = 250;

/**
 * `npm run bench -- dashboard`: a 200-node run streams ~50 events/s into a SQLite store while
 * `dagent dashboard`'s code runs attached from a second process. Reports that process's CPU as a
 * share of one core and the p95 latency from append to screen.
 */
export async function runDashboardBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-dashboard-'));
  const dbPath = join(dir, 'dagent.db');
  const store = await openDatabase(dbPath);
  try {
    const run = await createRun(store.db, { task: 'a scripted 200-node run', workspace: dir, mode: 'plan' });
    const log = runLog(store.db, run.id);
    const nodes = Array.from({ length: NODES }, (_, index) => ({ id: `n${String(index).padStart(3, '0')}`, kind: 'edit', title: `node ${index}`, dependsOn: index < 20 ? [] : [`n${String(index - 20).padStart(3, '0')}`] }));
    await log.append({ type: 'plan/created', payload: { version: 1, plan: { goal: 'bench', rationale: 'bench', nodes }, hash: 'bench' } });
    await log.append({ type: 'run/started', payload: { pid: process.pid, planVersion: 1 } });

    const attach = join(dirname(fileURLToPath(import.meta.url)), 'dashboard-attach.js');
    const child = spawn(process.execPath, [attach, dbPath, run.id, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    await exited;
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { cpuMs: number; wallMs: number; events: number; p50: number; p95: number; max: number };
    const share = result.cpuMs / result.wallMs;
    const rows = [
      ['measure', 'value', 'goal', 'met'],
      ['events appended', `${drafts.length + 1} in ${((Date.now() - started) / 1000).toFixed(1)} s`, `~${EVENTS_PER_SECOND}/s`, ''],
      ['dashboard CPU, share of one core', `${(share * 100).toFixed(1)} %`, `≤ ${CPU_GOAL * 100} %`, share <= CPU_GOAL ? 'yes' : 'no'],
      ['append → screen p50', `${result.p50} ms`, '', ''],
      ['append → screen p95', `${result.p95} ms`, `≤ ${P95_GOAL_MS} ms`, result.p95 <= P95_GOAL_MS ? 'yes' : 'no'],
      ['append → screen max', `${result.max} ms`, '', ''],
    ];
    for (const row of rows) process.stdout.write(`${row[0]!.padEnd(34)}${row[1]!.padEnd(22)}${row[2]!.padEnd(12)}${row[3]}\n`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A node's life, over and over: started, a request, an answer with usage and a tool call, the result, succeeded. */
function scriptedEvents(nodeIds: readonly string[], count: number): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (let index = 0; drafts.length < count; index += 1) {
    const nodeId = nodeIds[index % nodeIds.length]!;
    drafts.push(
      { type: 'node/started', nodeId, payload: { attempt: 1 } },
      { type: 'request/context', nodeId, payload: { messageSeqs: [], estimatedTokens: 3000 + (index % 40) * 100, surfaceGeneration: 0, compactionThresholdTokens: 6250 } },
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
