import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, END, START, StateGraph, entrypoint, task, type BaseCheckpointSaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import BetterSqlite3 from 'better-sqlite3';
import type { Workload } from './scheduler-workloads.js';

/** Runs one node's simulated work. */
export type NodeWork = (nodeId: string) => Promise<void>;

/** The part of LangGraph's StateGraph builder used here, with node names known only at run time. */
interface DynamicGraphBuilder {
  addNode(name: string, action: () => Promise<{ done: number }>): DynamicGraphBuilder;
  addEdge(from: string | string[], to: string): DynamicGraphBuilder;
  compile(options: { checkpointer?: BaseCheckpointSaver }): {
    invoke(input: { done: number }, config: { recursionLimit: number; configurable: { thread_id: string }; maxConcurrency?: number }): Promise<{ done: number }>;
  };
}

const DoneState = Annotation.Root({
  done: Annotation<number>({ reducer: (total, added) => total + added, default: () => 0 }),
});

/** A prefix keeps plan ids clear of LangGraph's reserved names. */
const nodeName = (id: string): string => `node_${id}`;

let threads = 0;

/**
 * The DAG as a StateGraph: one graph node per plan node; a join waits for all its
 * predecessors through `addEdge([...predecessors], node)`. Returns a function that runs it once.
 */
export function buildStateGraph(workload: Workload, work: NodeWork, options: { checkpointer?: BaseCheckpointSaver; maxConcurrency?: number } = {}): () => Promise<void> {
  const builder = new StateGraph(DoneState) as unknown as DynamicGraphBuilder;
  const hasDependents = new Set(workload.nodes.flatMap((node) => node.dependsOn));
  for (const node of workload.nodes) {
    builder.addNode(nodeName(node.id), async () => {
      await work(node.id);
      return { done: 1 };
    });
  }
  for (const node of workload.nodes) {
    const predecessors = node.dependsOn.map(nodeName);
    if (predecessors.length === 0) builder.addEdge(START, nodeName(node.id));
    else if (predecessors.length === 1) builder.addEdge(predecessors[0]!, nodeName(node.id));
    else builder.addEdge(predecessors, nodeName(node.id));
    if (!hasDependents.has(node.id)) builder.addEdge(nodeName(node.id), END);
  }
  const graph = builder.compile(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer });
  return async () => {
    const limit = options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency };
    const state = await graph.invoke({ done: 0 }, { recursionLimit: workload.nodes.length + 10, configurable: { thread_id: `bench-${(threads += 1)}` }, ...limit });
    if (state.done !== workload.nodes.length) throw new Error(`StateGraph ran ${state.done} of ${workload.nodes.length} nodes`);
  };
}

/**
 * The DAG with the functional API: an entrypoint that calls one `task` per node as soon as the
 * promises of its dependencies resolve (eager, like ours).
 */
export function buildFunctionalGraph(workload: Workload, work: NodeWork, options: { checkpointer?: BaseCheckpointSaver; maxConcurrency?: number } = {}): () => Promise<void> {
  const runNode = task('run_node', async (id: string) => {
    await work(id);
    return id;
  });
  const workflow = entrypoint(
    options.checkpointer === undefined ? 'dag' : { name: 'dag', checkpointer: options.checkpointer },
    async (_input: { start: true }) => {
      const finished = new Map<string, Promise<unknown>>();
      for (const node of workload.nodes) {
        const dependencies = node.dependsOn.map((id) => finished.get(id)!);
        finished.set(node.id, Promise.all(dependencies).then(() => runNode(node.id)));
      }
      return (await Promise.all(finished.values())).length;
    },
  );
  return async () => {
    const limit = options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency };
    const count = await workflow.invoke({ start: true }, { configurable: { thread_id: `bench-${(threads += 1)}` }, ...limit });
    if (count !== workload.nodes.length) throw new Error(`functional API ran ${String(count)} of ${workload.nodes.length} nodes`);
  };
}

/**
 * LangGraph's own SQLite checkpointer on a fresh file with our store's pragmas (WAL,
 * synchronous=NORMAL): the durable LangGraph next to our durable runs.
 */
export function createCheckpointer(): { saver: BaseCheckpointSaver; label: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-langgraph-'));
  const sqlite = new BetterSqlite3(join(dir, 'checkpoints.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  return {
    saver: new SqliteSaver(sqlite),
    label: 'SqliteSaver',
    cleanup: () => {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
