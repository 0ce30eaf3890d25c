import type { PlanNode } from '../../plan/plan-schema.js';
import { planStages } from '../../plan/plan-stages.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { EventLog } from '../../session/event-log.js';
import type { EventDraft, SessionEvent } from '../../session/event-types.js';
import type { RunMemory } from '../views/run-recovery.js';
import { inputsDifference, reuseKey } from '../views/reuse-key.js';
import { nodeInputs, pathsRead, type NodeInputsContext } from './node-inputs.js';
import type { NodeExecution, NodeOutcome } from '../../scheduler/schedulable-node.js';
import type { NodeResult, RemoteAttempts } from './run-options.js';

/** Whether results are reused (`--no-reuse` turns it off), and the nodes a new plan version put back to pending to check. */
export interface ReuseSettings {
  readonly enabled: boolean;
  /** Nodes to check before they run: kept when their key is unchanged, else their change is reverted. */
  readonly recheck: Set<string>;
}

export interface ReuseContext extends NodeInputsContext {
  readonly log: EventLog;
  readonly planVersion: number;
}

/**
 * After a node succeeds: what its result depends on, as the `node/keyed` event that goes in with
 * its `node/succeeded`, just before it (read back when a later plan version asks). `answers`: the
 * attempt's `assistant/message` events (its surface has them all).
 */
export async function nodeKeyDraft(context: NodeInputsContext & { readonly planVersion: number }, node: PlanNode, answers: readonly SessionEvent[]): Promise<EventDraft<'node/keyed'>> {
  const inputs = await nodeInputs(context, node, pathsRead(context, node, answers));
  return { type: 'node/keyed', nodeId: node.id, payload: { key: reuseKey(inputs), planVersion: context.planVersion, inputs } };
}

/**
 * The succeeded nodes a new plan version must look at again, each with why: one whose own inputs
 * (specification, model, files read) changed, and every node after one that runs again (its
 * dependency's result may change; it is checked when that is known). Nodes keyed under this plan
 * version, and nodes never keyed, are left as they are.
 */
export async function nodesToRecheck(context: ReuseContext, statuses: ReadonlyMap<string, NodeStatus>): Promise<Map<string, string>> {
  const recheck = new Map<string, string>();
  const keyedEarlier = (id: string): boolean => {
    const keyed = context.memory.keyed.get(id);
    return statuses.get(id) === 'succeeded' && keyed !== undefined && keyed.planVersion < context.planVersion;
  };
  // A fresh run (or one no plan edit touched) has nothing to look at: its plan is not staged for nothing, on the way to its first node.
  if (!context.plan.nodes.some((node) => keyedEarlier(node.id))) return recheck;
  const byId = new Map(context.plan.nodes.map((node) => [node.id, node]));
  for (const id of planStages(context.plan).flat()) {
    const node = byId.get(id)!;
    const keyed = context.memory.keyed.get(id);
    if (keyed === undefined || !keyedEarlier(id)) continue;
    const upstream = node.dependsOn.find((dependency) => recheck.has(dependency));
    if (upstream !== undefined) {
      recheck.set(id, `${upstream} runs again`);
      continue;
    }
    const difference = inputsDifference(keyed.inputs, await nodeInputs(context, node, Object.keys(keyed.inputs.files)));
    if (difference !== undefined) recheck.set(id, difference);
  }
  return recheck;
}

/**
 * A node a new plan version put back to pending, just before it would run: its earlier result when
 * nothing it depends on changed (`node/reused`, with what that attempt cost), else why not
 * (`reuse/missed`) and its earlier change reverted, keeping later edits. Undefined: run it.
 */
export async function reuseOrRevert(context: ReuseContext & { readonly files: NodeInputsContext['files'] }, node: PlanNode, settings: ReuseSettings): Promise<NodeResult | undefined> {
  settings.recheck.delete(node.id);
  const keyed = context.memory.keyed.get(node.id);
  let reason = 'reuse is off (--no-reuse)';
  if (settings.enabled && keyed !== undefined) {
    const now = await nodeInputs(context, node, Object.keys(keyed.inputs.files));
    const difference = inputsDifference(keyed.inputs, now) ?? (keyed.result === undefined ? 'its result was not recorded' : undefined);
    if (difference === undefined && keyed.result !== undefined) {
      const saved = await costOf(context.log, context.memory, node.id);
      await context.log.append({ type: 'node/reused', nodeId: node.id, payload: { key: keyed.key, planVersion: context.planVersion, fromSeq: keyed.fromSeq, ...saved } });
      return { answer: keyed.result.result, filesChanged: keyed.result.filesChanged };
    }
    reason = difference ?? reason;
  }
  const reverted = (await context.files.revertNode?.(node.id)) ?? { reverted: [], conflicts: [] };
  const conflicts = reverted.conflicts.length === 0 ? '' : `; its change to ${reverted.conflicts.join(', ')} could not be reverted (edited since in the same lines) and stays`;
  await context.log.append({ type: 'reuse/missed', nodeId: node.id, payload: { planVersion: context.planVersion, reason: `${reason}${conflicts}`, ...(keyed === undefined ? {} : { key: keyed.key }) } });
  return undefined;
}

/**
 * A node run on a worker. One a plan edit put back to check (workers in the shared working copy)
 * keeps its result here when nothing it depends on changed, or has its change reverted before it
 * is dispatched (`reuseOrRevert`, as `attemptNode` does in process).
 */
export async function attemptRemote(remote: RemoteAttempts, context: ReuseContext, reuse: ReuseSettings | undefined, nodeId: string, execution: NodeExecution): Promise<NodeOutcome<NodeResult>> {
  const node = context.plan.nodes.find((candidate) => candidate.id === nodeId);
  if (node !== undefined && reuse?.recheck.has(nodeId) === true) {
    await execution.durable;
    const kept = await reuseOrRevert(context, node, reuse);
    if (kept !== undefined) return { status: 'succeeded', result: kept };
  }
  return remote.execute(nodeId, { ...execution, planVersion: context.planVersion });
}

/** What the attempt that made a node's kept result cost: its model calls, tokens and cost. */
async function costOf(log: EventLog, memory: RunMemory, nodeId: string): Promise<{ modelCalls: number; saved: { input: number; output: number; cacheHit: number; reasoning: number }; savedCostUsd: number }> {
  const keyed = memory.keyed.get(nodeId);
  const saved = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };
  let savedCostUsd = 0;
  let modelCalls = 0;
  if (keyed === undefined) return { modelCalls, saved, savedCostUsd };
  const events = await log.read({ nodeId, types: ['assistant/message'], fromSeq: keyed.fromSeq, ...(keyed.toSeq === undefined ? {} : { toSeq: keyed.toSeq }) });
  for (const event of events) {
    if (event.type !== 'assistant/message') continue;
    modelCalls += 1;
    const usage = event.payload.usage;
    if (usage !== undefined) for (const part of ['input', 'output', 'cacheHit', 'reasoning'] as const) saved[part] += usage[part];
    savedCostUsd += event.payload.costUsd ?? 0;
  }
  return { modelCalls, saved, savedCostUsd };
}
