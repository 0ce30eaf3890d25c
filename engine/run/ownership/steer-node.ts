import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { DagentError, UnknownNodeError } from '../../errors.js';
import { readEvents } from '../../session/event-log.js';
import { runLog } from '../../session/run-log.js';
import { getRun } from '../storage/run-store.js';
import { statusWords } from '../storage/status-words.js';
import { RUN_VIEW_EVENT_TYPES, foldRunView, type NodeView } from '../views/run-view.js';

/** `say` or `pause` to a node that is not running now. */
export class NodeNotRunningError extends DagentError {
  constructor(readonly runId: string, readonly nodeId: string, readonly status: string) {
    super(`node ${nodeId} of run ${runId} is not running (${statusWords(status)}); only a running node hears a word or pauses`);
  }
}

/** `resume --node` of a node no pause was asked of. */
export class NodeNotPausedError extends DagentError {
  constructor(readonly runId: string, readonly nodeId: string, readonly status: string) {
    super(`node ${nodeId} of run ${runId} is not paused (${statusWords(status)})`);
  }
}

/** What a steering request wrote: the run (its full id), the node, and the event's seq. */
export interface SteeringReceipt {
  readonly runId: string;
  readonly nodeId: string;
  readonly seq: number;
}

/**
 * A word for a running node (`dagent say`, the dashboard): written to the run's log as
 * `node/told`; the node's agent makes it a user message of its next step, from whatever process
 * runs it. Refused, in one line, for an unknown run or node and for a node that is not running.
 */
export async function tellNode(db: Kysely<Database>, runId: string, nodeId: string, content: string, by: string): Promise<SteeringReceipt> {
  if (content.trim() === '') throw new DagentError('say what? the text to send is empty');
  const { run, node } = await runningNode(db, runId, nodeId);
  const told = await runLog(db, run).append({ type: 'node/told', nodeId: node.id, payload: { content, by } });
  return { runId: run, nodeId: node.id, seq: told.seq };
}

/** Asks a running node to stop at its next step boundary (`node/pause-requested`); other nodes go on. */
export async function pauseNode(db: Kysely<Database>, runId: string, nodeId: string, by: string): Promise<SteeringReceipt> {
  const { run, node } = await runningNode(db, runId, nodeId);
  if (node.pause !== null) throw new DagentError(`node ${node.id} of run ${run} is already ${node.pause === 'paused' ? 'paused' : 'pausing (at its next step)'}; \`dagent resume ${run} --node ${node.id}\` lets it go on`);
  const requested = await runLog(db, run).append({ type: 'node/pause-requested', nodeId: node.id, payload: { by } });
  return { runId: run, nodeId: node.id, seq: requested.seq };
}

/**
 * Lets paused (or pausing) nodes go on (`node/resume-requested`): the one named, which must be
 * paused, or every node a pause was asked of. Returns the nodes it resumed (none is not an error
 * without `nodeId`: `dagent resume` of a stopped run clears what is left).
 */
export async function resumeNodes(db: Kysely<Database>, runId: string, options: { readonly nodeId?: string; readonly by: string }): Promise<{ readonly runId: string; readonly nodeIds: readonly string[] }> {
  const { run, nodes } = await nodesOf(db, runId);
  let paused: NodeView[];
  if (options.nodeId !== undefined) {
    const node = nodes.get(options.nodeId);
    if (node === undefined) throw new UnknownNodeError(run, options.nodeId);
    if (node.pause === null) throw new NodeNotPausedError(run, node.id, node.status);
    paused = [node];
  } else {
    paused = [...nodes.values()].filter((node) => node.pause !== null);
  }
  if (paused.length > 0) await runLog(db, run).appendMany(paused.map((node) => ({ type: 'node/resume-requested' as const, nodeId: node.id, payload: { by: options.by } })));
  return { runId: run, nodeIds: paused.map((node) => node.id) };
}

async function nodesOf(db: Kysely<Database>, runId: string): Promise<{ run: string; nodes: ReadonlyMap<string, NodeView> }> {
  const run = await getRun(db, runId);
  const view = foldRunView(run.id, await readEvents(db, run.id, { types: RUN_VIEW_EVENT_TYPES }));
  return { run: run.id, nodes: view.nodes };
}

async function runningNode(db: Kysely<Database>, runId: string, nodeId: string): Promise<{ run: string; node: NodeView }> {
  const { run, nodes } = await nodesOf(db, runId);
  const node = nodes.get(nodeId);
  if (node === undefined) throw new UnknownNodeError(run, nodeId);
  if (node.status !== 'running') throw new NodeNotRunningError(run, node.id, node.status);
  return { run, node };
}
