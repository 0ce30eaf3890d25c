import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { EventLog, Session, createRun, estimateTextTokens, openDatabase, type EventDraft, type SqliteSynchronous } from '../engine/index.js';
import { median, printTable, verdict } from './lib/table.js';

const APPEND_EVENTS = 4_000;
const DERIVE_EVENTS = 20_000;
const REPETITIONS = 3;

/**
 * Session log benchmark: (a) appends per second, one transaction each, next to raw
 * better-sqlite3 inserting the same rows with the same pragmas; (b) deriveMessages() per-call
 * cost while a node session grows to 20 000 events; (c) peak RSS.
 */
export async function runSessionBench(): Promise<void> {
  const appendRows: string[][] = [];
  const ratios: Record<string, number> = {};
  for (const synchronous of ['NORMAL', 'FULL'] as const) {
    const ours: number[] = [];
    const raw: number[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition += 1) {
      raw.push(await rawAppendRate(synchronous));
      ours.push(await ourAppendRate(synchronous));
    }
    const ratio = median(ours) / median(raw);
    ratios[synchronous] = ratio;
    appendRows.push([`synchronous=${synchronous}`, fmt(median(ours)), fmt(median(raw)), ratio.toFixed(2), '≥ 0.50', verdict(ratio >= 0.5)]);
  }
  printTable(`(a) session appends, one transaction each (${APPEND_EVENTS} events, median of ${REPETITIONS})`, ['mode', 'ours/s', 'raw/s', 'ratio', 'goal', ''], appendRows);

  const derive = await deriveGrowth();
  printTable(
    `(b) deriveMessages() per call while a node session grows to ${DERIVE_EVENTS} events`,
    ['calls', 'µs/call', 'ratio', 'goal', ''],
    [
      ['first 1000', derive.first.toFixed(2), '', '', ''],
      ['last 1000', derive.last.toFixed(2), (derive.last / derive.first).toFixed(2), '≤ 1.50', verdict(derive.last / derive.first <= 1.5)],
    ],
  );
  const peakMb = process.resourceUsage().maxRSS / 1024;
  printTable('(c) memory', ['measure', 'MB'], [['peak RSS', peakMb.toFixed(1)]]);
}

function fmt(rate: number): string {
  return Math.round(rate).toLocaleString('en-US');
}

function draft(index: number): EventDraft<'tool/result'> {
  const content = `line ${index}: export function area${index}(shape: Shape): number { return shape.width * shape.height; }`;
  return {
    type: 'tool/result',
    nodeId: 'edit-a',
    turn: 1,
    step: index,
    payload: { toolCallId: `call_${index}`, name: 'read_file', content, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: content.length } },
  };
}

async function ourAppendRate(synchronous: SqliteSynchronous): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-'));
  const store = await openDatabase(join(dir, 'dagent.db'), { synchronous });
  try {
    const run = await createRun(store.db, { task: 'bench', workspace: dir, mode: 'plan' });
    const log = new EventLog(store.db, run.id);
    for (let index = 0; index < 200; index += 1) await log.append(draft(index));
    const start = performance.now();
    for (let index = 0; index < APPEND_EVENTS; index += 1) await log.append(draft(index));
    return APPEND_EVENTS / ((performance.now() - start) / 1000);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rawAppendRate(synchronous: SqliteSynchronous): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-'));
  const path = join(dir, 'dagent.db');
  const store = await openDatabase(path);
  const run = await createRun(store.db, { task: 'bench', workspace: dir, mode: 'plan' });
  await store.close();
  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${synchronous}`);
    sqlite.pragma('foreign_keys = ON');
    // Ours moves checkpoints to a worker thread; raw gets none at all in the timed window.
    sqlite.pragma('wal_autocheckpoint = 0');
    const insert = sqlite.prepare(
      'insert into events (run_id, seq, node_id, turn, step, type, payload, surface_op, source_event_seqs, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    let seq = 1;
    const write = (index: number): void => {
      const event = draft(index);
      seq += 1;
      insert.run(run.id, seq, event.nodeId, event.turn, event.step, event.type, JSON.stringify(event.payload), null, null, new Date().toISOString());
    };
    for (let index = 0; index < 200; index += 1) write(index);
    const start = performance.now();
    for (let index = 0; index < APPEND_EVENTS; index += 1) write(index);
    return APPEND_EVENTS / ((performance.now() - start) / 1000);
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function deriveGrowth(): Promise<{ first: number; last: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-'));
  const store = await openDatabase(join(dir, 'dagent.db'));
  try {
    const run = await createRun(store.db, { task: 'bench', workspace: dir, mode: 'plan' });
    const session = await Session.open(new EventLog(store.db, run.id), 'edit-a');
    await session.append({ type: 'user/message', payload: { content: 'Rename area() to getArea().', source: 'instruction' } });
    estimateTextTokens('load the tokenizer before timing anything');
    const costs: number[] = [];
    for (let index = 0; index < DERIVE_EVENTS; index += 1) {
      const id = `call_${index}`;
      const event: EventDraft =
        index % 2 === 0
          ? { type: 'assistant/message', payload: { content: '', toolCalls: [{ id, name: 'read_file', args: { path: `src/f${index}.ts` } }], finishReason: 'tool-calls', provider: 'scripted', model: 'm' } }
          : draft(index - 1);
      await session.append(event);
      const start = performance.now();
      session.deriveMessages();
      costs.push(performance.now() - start);
    }
    const mean = (values: number[]): number => (values.reduce((sum, value) => sum + value, 0) / values.length) * 1000;
    return { first: mean(costs.slice(0, 1000)), last: mean(costs.slice(-1000)) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
