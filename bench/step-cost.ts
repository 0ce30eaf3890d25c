import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Session as InspectorSession } from 'node:inspector/promises';
import { CliContext } from '../cli/context/cli-context.js';
import { createNodeCompactor, createNodeRuntime, createTools } from '../cli/runtime/compose-runtime.js';
import {
  EventLog,
  Session,
  createRun,
  createScriptedProvider,
  executePlanNode,
  requestParts,
  type ModelProvider,
  type ModelRequest,
  type Plan,
  type StreamPart,
  type ToolRuntime,
} from '../engine/index.js';
import { createNonInteractiveApprover } from '../tools/index.js';
import { median, printTable, verdict } from './lib/table.js';
import { runRealRunsBench } from './real-runs.js';

const HISTORY_TOKENS = 30_000;
const MEASURED_STEPS = 60;
const BIG_FILES = 24;
const GOAL_MS = 5;
const NODE_ID = 'edit-a';

/** `STEP_PROFILE=FILE`: a CPU profile of the measured steps alone is written to FILE (for Chrome DevTools). */
function stepProfiler(path: string | undefined): { start(): Promise<void>; stop(): Promise<void> } | undefined {
  if (path === undefined) return undefined;
  const inspector = new InspectorSession();
  return {
    async start() {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    },
    async stop() {
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(path, JSON.stringify(profile));
      inspector.disconnect();
    },
  };
}
const profiler = stepProfiler(process.env.STEP_PROFILE);

/**
 * `npm run bench -- step-cost`: a model node's own CPU per step, outside the model call. One plan
 * node of kind `edit` runs through the pieces `dagent run` composes (its system prompt and tools,
 * memory recall, compaction, steering, the SQLite log) on a scripted model with no latency. It
 * first reads files until its history holds about 30 000 tokens, then takes 60 more steps, each
 * one small `read_file`. For each of those steps, the process CPU time (user + system, every
 * thread) from one model call to the next, less the CPU spent inside the provider's stream.
 * Then W2 and W3 of the scheduler bench as real `dagent run`s on SQLite and PostgreSQL
 * (`bench/real-runs.ts`): wall time over the critical path, and the run's CPU per node.
 */
export async function runStepCostBench(): Promise<void> {
  const measured = await measureSteps();
  printTable(
    `a model node's step outside the model call (node ${process.version}; static prefix ${kb(measured.prefixChars)}; history ${fmt(measured.historyTokens)} → ${fmt(measured.endTokens)} tokens; ${measured.cpuMs.length} steps)`,
    ['measure', 'p50', 'p95', 'max', 'goal', ''],
    [
      ['CPU ms per step, outside the provider', ms(pct(measured.cpuMs, 0.5)), ms(pct(measured.cpuMs, 0.95)), ms(Math.max(...measured.cpuMs)), `p50 ≤ ${GOAL_MS} ms`, verdict(pct(measured.cpuMs, 0.5) <= GOAL_MS)],
      ['wall ms per step, outside the provider', ms(pct(measured.wallMs, 0.5)), ms(pct(measured.wallMs, 0.95)), ms(Math.max(...measured.wallMs)), '', ''],
      ['  of which the tool call (read_file, runtime checks, tool/call)', ms(pct(measured.toolCpuMs, 0.5)), ms(pct(measured.toolCpuMs, 0.95)), ms(Math.max(...measured.toolCpuMs)), '', ''],
      ['CPU ms inside the scripted provider (excluded)', ms(median(measured.providerCpuMs)), ms(pct(measured.providerCpuMs, 0.95)), ms(Math.max(...measured.providerCpuMs)), '', ''],
    ],
  );
  await runRealRunsBench();
}

export interface StepCost {
  readonly prefixChars: number;
  readonly historyTokens: number;
  readonly endTokens: number;
  readonly cpuMs: readonly number[];
  readonly wallMs: readonly number[];
  readonly providerCpuMs: readonly number[];
  /** Of `cpuMs`: the step's tool call (a small `read_file`). */
  readonly toolCpuMs: readonly number[];
}

/** The scripted turns: reads that build the history, the measured small reads, an answer. */
function script(): unknown {
  const read = (path: string, index: number): unknown => ({ toolCalls: [{ id: `call-${index}`, name: 'read_file', args: { path } }], usage: { input: 1000, output: 20 } });
  const turns: unknown[] = [];
  for (let index = 0; index < BIG_FILES; index += 1) turns.push(read(`src/big-${index}.ts`, turns.length));
  for (let index = 0; index < MEASURED_STEPS + 1; index += 1) turns.push(read(`src/small-${index % 4}.ts`, turns.length));
  turns.push({ text: 'Done: read the shapes.', usage: { input: 1000, output: 20 } });
  return { description: 'step-cost bench', contextWindow: 200_000, agents: { [`node:${NODE_ID}`]: turns } };
}

function writeWorkspace(workspace: string): void {
  mkdirSync(join(workspace, 'src'), { recursive: true });
  for (let file = 0; file < BIG_FILES; file += 1) {
    const lines = Array.from({ length: 36 }, (_, line) => `export const area${file}_${line} = (shape: Shape) => shape.width * shape.height + offset(${line}, ${file}); // ${line}`);
    writeFileSync(join(workspace, 'src', `big-${file}.ts`), `${lines.join('\n')}\n`);
  }
  for (let file = 0; file < 4; file += 1) writeFileSync(join(workspace, 'src', `small-${file}.ts`), `export const small${file} = ${file};\n`);
}

interface CallMark {
  readonly cpuUs: number;
  readonly wallMs: number;
  providerCpuUs: number;
  providerWallMs: number;
  /** CPU of the step's tool calls (`ToolRuntime.execute`, checks and the `tool/call` event included). */
  toolCpuUs: number;
}

function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The node's tool runtime, with the CPU of each `execute` added to the current step's mark. */
function timedTools(tools: ToolRuntime, marks: CallMark[]): ToolRuntime {
  return new Proxy(tools, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'execute' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<ToolRuntime['execute']>) => {
        const mark = marks.at(-1);
        const cpu = cpuNow();
        try {
          return await target.execute(...args);
        } finally {
          if (mark !== undefined) mark.toolCpuUs += cpuNow() - cpu;
        }
      };
    },
  });
}

/** The scripted provider, with the CPU and wall time spent inside its stream noted per call. */
function timedProvider(inner: ModelProvider, marks: CallMark[], onFirst: (request: ModelRequest) => void): ModelProvider {
  return {
    id: inner.id,
    contextWindow: (model) => inner.contextWindow(model),
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
      const mark: CallMark = { cpuUs: cpuNow(), wallMs: performance.now(), providerCpuUs: 0, providerWallMs: 0, toolCpuUs: 0 };
      if (marks.length === 0) onFirst(request);
      marks.push(mark);
      if (marks.length === BIG_FILES + 1) await profiler?.start();
      const iterator = inner.stream(request, signal)[Symbol.asyncIterator]();
      for (;;) {
        const cpu = cpuNow();
        const wall = performance.now();
        const next = await iterator.next();
        mark.providerCpuUs += cpuNow() - cpu;
        mark.providerWallMs += performance.now() - wall;
        if (next.done === true) return;
        yield next.value;
      }
    },
  };
}

export async function measureSteps(): Promise<StepCost> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-step-'));
  const workspace = join(dir, 'ws');
  writeWorkspace(workspace);
  const sink = new PassThrough();
  sink.resume();
  const io = { stdout: sink, stderr: sink, stdin: new PassThrough(), env: { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), PATH: process.env.PATH }, cwd: workspace, interrupt: new AbortController().signal };
  const context = new CliContext(io, { workspace, model: 'scripted:bench', approval: 'auto', sandbox: false });
  const marks: CallMark[] = [];
  let prefixChars = 0;
  const provider = timedProvider(createScriptedProvider({ script: script() }), marks, (request) => {
    prefixChars = requestParts(request).filter((part) => part.kind !== 'message').reduce((sum, part) => sum + part.text.length, 0);
  });
  try {
    const tools = await createTools(context, { mcp: false });
    const composed = await createNodeRuntime(context, { tools, approver: createNonInteractiveApprover() });
    const compactor = createNodeCompactor(context, provider, 'bench');
    const runtime = { ...composed, tools: timedTools(composed.tools, marks), limits: { maxSteps: 200 }, resolveModel: () => ({ provider, model: 'bench', compactor }) };
    const store = await context.store();
    const node = { id: NODE_ID, kind: 'edit' as const, title: 'read the shapes', instructions: 'Read the shape files and say what they compute.', reads: ['src/**'], writes: [], dependsOn: [] };
    const plan: Plan = { goal: 'bench', rationale: 'bench', nodes: [node] };
    const run = await createRun(store.db, { task: 'bench', workspace, mode: 'plan', status: 'running' });
    const log = new EventLog(store.db, run.id);
    const session = await Session.open(log, NODE_ID);
    let historyTokens = 0;
    let endTokens = 0;
    try {
      const result = await executePlanNode(runtime, {
        runId: run.id,
        plan,
        node,
        attempt: 1,
        session,
        handoffs: [],
        writeScope: { check: () => undefined, beforeWrite: async () => undefined },
        signal: new AbortController().signal,
        onStepEnd: async () => {
          if (historyTokens === 0 && marks.length === BIG_FILES) historyTokens = session.messageTokens();
          endTokens = session.messageTokens();
        },
      });
      if (result.status !== 'succeeded') throw new Error(`bench node ended ${result.status}: ${result.error}`);
      if (historyTokens < HISTORY_TOKENS * 0.95) throw new Error(`bench: the history held ${historyTokens} tokens, not about ${HISTORY_TOKENS}`);
    } finally {
      session.close();
    }
    const cpuMs: number[] = [];
    const wallMs: number[] = [];
    const providerCpuMs: number[] = [];
    const toolCpuMs: number[] = [];
    // Steps after the history reached its size: from one call's start to the next, less the provider's share.
    for (let index = BIG_FILES; index < marks.length - 1; index += 1) {
      const mark = marks[index]!;
      const next = marks[index + 1]!;
      cpuMs.push((next.cpuUs - mark.cpuUs - mark.providerCpuUs) / 1_000);
      wallMs.push(next.wallMs - mark.wallMs - mark.providerWallMs);
      providerCpuMs.push(mark.providerCpuUs / 1_000);
      toolCpuMs.push(mark.toolCpuUs / 1_000);
    }
    await profiler?.stop();
    return { prefixChars, historyTokens, endTokens, cpuMs, wallMs, providerCpuMs, toolCpuMs };
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function pct(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

function ms(value: number): string {
  return value.toFixed(2);
}

function kb(chars: number): string {
  return `${(chars / 1024).toFixed(1)} KB`;
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runStepCostBench();
