import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  EventLog,
  Session,
  compactSession,
  createRun,
  extractSurvivalFacts,
  groupTurns,
  openDatabase,
  planPrune,
  compactableSpan,
  selectRange,
  type CompactionResult,
  type Store,
  type Summarizer,
} from '../engine/index.js';
import { median, printTable } from './lib/table.js';

const TARGET_TOKENS = 160_000;
const WINDOW_TOKENS = 200_000;
const OUTPUT_LINES_PER_READ = 60;
const REPETITIONS = 3;

/**
 * Compaction of a 160K-token node session with a zero-latency summarizer: the time compaction
 * spends outside the model call (log reads and appends, token estimates, range selection,
 * survival facts), and what `deriveMessages()` costs right after the surface was replaced.
 * Two cases: stage 1 alone (pruning reaches the target) and stage 2 (a summary).
 */
export async function runCompactionBench(): Promise<void> {
  const rows: string[][] = [];
  for (const stage of ['prune', 'summary'] as const) {
    const samples: Sample[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition += 1) samples.push(await measure(stage));
    const pick = (key: keyof Sample): number => median(samples.map((sample) => sample[key] as number));
    rows.push([
      stage === 'prune' ? 'stage 1: prune' : 'stage 2: summary',
      fmt(pick('tokensBefore')),
      fmt(pick('tokensAfter')),
      pick('totalMs').toFixed(1),
      pick('modelMs').toFixed(2),
      pick('outsideMs').toFixed(1),
      pick('deriveAfterMs').toFixed(1),
      pick('deriveNextMs').toFixed(3),
    ]);
    if (stage === 'summary') printPureSteps(samples[0]!);
  }
  printTable(
    `compaction of a ${fmt(TARGET_TOKENS)}-token node session, ${fmt(WINDOW_TOKENS)} window, zero-latency summarizer (median of ${REPETITIONS})`,
    ['case', 'tokens before', 'after', 'total ms', 'summarizer ms', 'outside ms', 'derive after ms', 'next derive ms'],
    rows,
  );
  const peakMb = process.resourceUsage().maxRSS / 1024;
  printTable('memory', ['measure', 'MB'], [['peak RSS', peakMb.toFixed(1)]]);
}

interface Sample {
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly totalMs: number;
  readonly modelMs: number;
  readonly outsideMs: number;
  readonly deriveAfterMs: number;
  readonly deriveNextMs: number;
  readonly fullDeriveMs: number;
  readonly pureMs: Readonly<Record<string, number>>;
  readonly events: number;
}

async function measure(stage: 'prune' | 'summary'): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-compaction-'));
  const store = await openDatabase(join(dir, 'dagent.db'));
  try {
    const session = await buildSession(store);
    const tokensBefore = session.messageTokens();
    const reopened = performance.now();
    const cold = await Session.open(session.log, session.nodeId);
    cold.deriveMessages();
    const fullDeriveMs = performance.now() - reopened;
    cold.close();
    const pureMs = timePureSteps(session);

    let modelMs = 0;
    const summarize: Summarizer = async (request) => {
      const started = performance.now();
      const paths = new Set(JSON.stringify(request.messages).match(/src\/[\w/.-]+\.ts/g) ?? []);
      const text = `## Primary request and intent\nRename area() to getArea().\n## Files and code (read, changed, key facts)\n${[...paths].join(', ')}`;
      modelMs += performance.now() - started;
      return { text };
    };
    const started = performance.now();
    const result: CompactionResult = await compactSession(session, {
      trigger: 'manual',
      window: WINDOW_TOKENS,
      summarize,
      signal: new AbortController().signal,
      ...(stage === 'summary' ? { pruneMinTokens: Number.POSITIVE_INFINITY } : {}),
    });
    const totalMs = performance.now() - started;
    const expected = stage === 'prune' ? 'pruned' : 'committed';
    if (result.outcome !== expected) throw new Error(`bench: expected ${expected}, got ${JSON.stringify(result)}`);

    const deriveStarted = performance.now();
    session.deriveMessages();
    const deriveAfterMs = performance.now() - deriveStarted;
    const nextStarted = performance.now();
    session.deriveMessages();
    const deriveNextMs = performance.now() - nextStarted;
    const events = session.eventCount;
    session.close();
    return { tokensBefore, tokensAfter: result.tokensAfter, totalMs, modelMs, outsideMs: totalMs - modelMs, deriveAfterMs, deriveNextMs, fullDeriveMs, pureMs, events };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An instruction, then read_file turns of code-like output until the messages hold 160K tokens. */
async function buildSession(store: Store): Promise<Session> {
  const run = await createRun(store.db, { task: 'bench', workspace: '/w', mode: 'plan' });
  const session = await Session.open(new EventLog(store.db, run.id), 'edit-a');
  await session.append({ type: 'user/message', payload: { content: 'Rename Shape.area() to Shape.getArea() everywhere and keep the tests green.', source: 'instruction' } });
  for (let step = 1; session.messageTokens() < TARGET_TOKENS; step += 1) {
    const path = `src/shapes/shape${step}.ts`;
    const content = codeLike(step);
    await session.log.appendMany([
      {
        type: 'assistant/message',
        nodeId: 'edit-a',
        step,
        payload: { content: `Reading ${path}.`, toolCalls: [{ id: `call_${step}`, name: 'read_file', args: { path } }], finishReason: 'tool-calls', provider: 'bench', model: 'm' },
      },
      {
        type: 'tool/result',
        nodeId: 'edit-a',
        step,
        payload: { toolCallId: `call_${step}`, name: 'read_file', content, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: content.length, args: { path } } },
      },
    ]);
  }
  return session;
}

function codeLike(file: number): string {
  const lines: string[] = [];
  for (let line = 1; line <= OUTPUT_LINES_PER_READ; line += 1) {
    lines.push(`${String(line).padStart(4)}\t  const area${file}_${line} = shape.width * shape.height + offset(${line}, ${file}); // keep ${line}`);
  }
  return `export class Shape${file} implements Shape {\n${lines.join('\n')}\n}`;
}

/** The pure steps a compaction runs, timed alone on the session before it. */
function timePureSteps(session: Session): Record<string, number> {
  const surface = session.surface();
  const messages = session.deriveMessages();
  const time = (fn: () => unknown): number => {
    const started = performance.now();
    fn();
    return performance.now() - started;
  };
  const layout = groupTurns(surface);
  return {
    'groupTurns': time(() => groupTurns(surface)),
    'selectRange': time(() => selectRange(surface)),
    'planPrune': time(() =>
      planPrune({ surface, span: compactableSpan(layout, 3), tokensOf: (index) => messages[index]!.content.length / 4, tokens: TARGET_TOKENS, targetTokens: 100_000 }),
    ),
    'extractSurvivalFacts': time(() => extractSurvivalFacts(surface)),
  };
}

function printPureSteps(sample: Sample): void {
  printTable(
    `pure steps on the ${fmt(sample.tokensBefore)}-token surface (${fmt(sample.events)} events), and a full derivation for scale`,
    ['step', 'ms'],
    [...Object.entries(sample.pureMs).map(([name, ms]) => [name, ms.toFixed(2)]), ['Session.open + deriveMessages() from the log', sample.fullDeriveMs.toFixed(1)]],
  );
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runCompactionBench();
