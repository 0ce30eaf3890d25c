import BetterSqlite3 from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventLog, createRun, openDatabase, readEvents, type EventDraft } from '../engine/index.js';
import { median, printTable, verdict } from './lib/table.js';

const READ_EVENTS = 20_000;
const ROUNDS = 7;
const GOAL_MS = 170;

/**
 * Reading a long run back: `readEvents` of a run of 20 001 events (a node's tool calls and
 * results), timed in a fresh process each round as `status`, `log` and `show` read it, in CPU
 * time (user + system), which a loaded machine inflates less than wall time.
 */
export async function runReadLogBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-'));
  try {
    const path = join(dir, 'dagent.db');
    await writeRun(path);
    const ours = { cpu: [] as number[], wall: [] as number[] };
    const driver = { cpu: [] as number[], wall: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [mode, into] of [['events', ours], ['driver', driver]] as const) {
        const [cpuMs, wallMs] = execFileSync(process.execPath, [fileURLToPath(import.meta.url), path, mode], { encoding: 'utf8' }).trim().split(' ').map(Number);
        into.cpu.push(cpuMs!);
        into.wall.push(wallMs!);
      }
    }
    const ratio = median(ours.cpu) / median(driver.cpu);
    printTable(`readEvents of ${READ_EVENTS + 1} events in a fresh process, beside the same rows read by better-sqlite3 alone (median of ${ROUNDS})`, ['measure', 'readEvents ms', 'driver alone ms', 'ratio', 'goal', ''], [
      ['cpu', median(ours.cpu).toFixed(0), median(driver.cpu).toFixed(0), ratio.toFixed(2), `≤ ${GOAL_MS} ms`, verdict(median(ours.cpu) <= GOAL_MS)],
      ['wall', median(ours.wall).toFixed(0), median(driver.wall).toFixed(0), (median(ours.wall) / median(driver.wall)).toFixed(2), '', ''],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function writeRun(path: string): Promise<void> {
  const store = await openDatabase(path);
  try {
    const run = await createRun(store.db, { task: 'bench', workspace: '/tmp', mode: 'plan' });
    const drafts = Array.from({ length: READ_EVENTS }, (_, index) => draft(index));
    const log = new EventLog(store.db, run.id);
    for (let index = 0; index < READ_EVENTS; index += 500) await log.appendMany(drafts.slice(index, index + 500));
  } finally {
    await store.close();
  }
}

function draft(index: number): EventDraft {
  const content = `line ${index}: export function area${index}(shape: Shape): number { return shape.width * shape.height; }`;
  if (index % 2 === 0) {
    const toolCalls = [{ id: `call_${index}`, name: 'read_file', args: { path: `src/f${index}.ts` } }];
    return { type: 'assistant/message', nodeId: 'edit-a', turn: 1, step: index, payload: { content: '', toolCalls, finishReason: 'tool-calls', provider: 'scripted', model: 'm' } };
  }
  const meta = { outcome: 'ok' as const, truncated: false, originalLength: content.length };
  return { type: 'tool/result', nodeId: 'edit-a', turn: 1, step: index, payload: { toolCallId: `call_${index}`, name: 'read_file', content, isError: false, meta } };
}

/** The child: one cold read, printed as `<cpu ms> <wall ms>`; `driver` reads the same rows with better-sqlite3 alone (no kysely, no parsing): the floor. */
async function readOnce(path: string, mode: string): Promise<void> {
  if (mode === 'driver') return readWithDriver(path);
  const store = await openDatabase(path);
  try {
    const runId = (await store.db.selectFrom('runs').select('id').executeTakeFirstOrThrow()).id;
    const wall = performance.now();
    const start = process.cpuUsage();
    const events = await readEvents(store.db, runId);
    const used = process.cpuUsage(start);
    if (events.length !== READ_EVENTS + 1) throw new Error(`read ${events.length} events`);
    process.stdout.write(`${(used.user + used.system) / 1000} ${performance.now() - wall}\n`);
  } finally {
    await store.close();
  }
}

function readWithDriver(path: string): void {
  const sqlite = new BetterSqlite3(path, { readonly: true });
  try {
    const runId = (sqlite.prepare('select id from runs').get() as { id: string }).id;
    const wall = performance.now();
    const start = process.cpuUsage();
    const rows = sqlite.prepare('select * from events where run_id = ? order by seq').all(runId);
    const used = process.cpuUsage(start);
    if (rows.length !== READ_EVENTS + 1) throw new Error(`read ${rows.length} rows`);
    process.stdout.write(`${(used.user + used.system) / 1000} ${performance.now() - wall}\n`);
  } finally {
    sqlite.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] !== undefined) await readOnce(process.argv[2], process.argv[3] ?? 'events');
