import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { DagentError } from '../../errors.js';
import type { PlanDiff } from '../../plan/plan-diff.js';
import { planStages } from '../../plan/plan-stages.js';
import type { Plan } from '../../plan/plan-schema.js';
import { createReachability } from '../../plan/reachability.js';
import { runLog } from '../../session/run-log.js';
import { revertRun, type RevertConflict, type RevertedFile } from '../../snapshots/file-revert.js';
import { listSnapshots } from '../../snapshots/file-snapshot-rows.js';
import { currentPlan, savePlan } from '../storage/plan-store.js';
import { revertOnRunBranch } from '../../workspace/run-branch-revert.js';
import { getRun } from '../storage/run-store.js';
import { nodeStatesFromEvents } from '../views/node-states.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../storage/node-event.js';

export interface RerunInput {
  /** The node to run again; every node that depends on it (transitively) runs again too. */
  readonly from: string;
  /** Added to the node's instructions for its new attempt (and kept in the plan version). */
  readonly instruction?: string;
  /** Where the run's files are (the run's workspace unless it moved). */
  readonly workspace: string;
  /** Revert over files edited since, as `revert --force` does. */
  readonly force?: boolean;
}

export interface PreparedRerun {
  readonly runId: string;
  readonly from: string;
  readonly fromVersion: number;
  readonly version: number;
  readonly diff: PlanDiff | undefined;
  /** The nodes that run again, in plan order. */
  readonly nodes: readonly string[];
  readonly reverted: readonly RevertedFile[];
}

/** What a rerun's instruction adds to the node's own, so the model reads both. */
export function withRerunInstruction(instructions: string, instruction: string): string {
  return `${instructions.trim()}\n\nOn this rerun: ${instruction.trim()}`.trim();
}

/**
 * `rerun --from NODE`: a new plan version (approved by the asking: its diff is the instruction, if
 * any) in which NODE and every node depending on it get a new attempt. Their changes are reverted
 * first, the last node first, each exactly when its files are as it left them (the per-node revert
 * of `revert --node`); the nodes upstream keep their results and files. Refuses a run that is
 * running, a node the plan does not have, and reverts that conflict (unless `force`).
 */
export async function prepareRerun(db: Kysely<Database>, runId: string, input: RerunInput): Promise<PreparedRerun> {
  const run = await getRun(db, runId);
  if (run.status === 'running') throw new DagentError(`run ${run.id} is running; a rerun needs it stopped: \`dagent cancel ${run.id}\` first (it also closes a run whose process died)`);
  const stored = await currentPlan(db, run);
  const plan = stored.plan;
  // A rerun runs the plan a person approved, again from one node: never a version nobody approved.
  if (stored.status !== 'approved') throw new DagentError(`plan v${stored.version} of run ${run.id} is ${stored.status.replace('_', ' ')}: a rerun runs an approved plan again; review it with \`dagent show ${run.id}\`, then \`dagent approve ${run.id}\` and \`dagent run ${run.id}\``);
  if (!plan.nodes.some((node) => node.id === input.from)) {
    throw new DagentError(`node ${input.from} is not in plan v${stored.version} of run ${run.id}; its nodes: ${plan.nodes.map((node) => node.id).join(', ')}`);
  }
  const again = rerunSet(plan, input.from);
  const log = runLog(db, run.id);
  const states = nodeStatesFromEvents(await log.read({ types: NODE_TRANSITION_EVENT_TYPES }));
  if (states.size === 0) throw new DagentError(`run ${run.id} has not run yet: \`dagent run ${run.id}\` runs it (every node, once)`);
  const touched = new Set((await listSnapshots(db, run.id)).map((snapshot) => snapshot.nodeId));
  // The last node first: each one's files are then as it left them, and come back exactly.
  const order = planStages(plan).flat().filter((id) => again.has(id) && touched.has(id)).reverse();
  const conflicts: RevertConflict[] = [];
  for (const nodeId of order) {
    const dry = await revertRun(db, run.id, input.workspace, { nodeId, log, dryRun: true, force: input.force === true });
    conflicts.push(...dry.conflicted);
  }
  if (conflicts.length > 0) {
    const listed = conflicts.map((conflict) => `${conflict.path} (${conflict.nodeId}: ${conflict.reason})`).join('; ');
    throw new DagentError(`rerun refused: cannot revert ${listed}; put them back or pass --force to overwrite them`, { exitCode: 1 });
  }
  const reverted: RevertedFile[] = [];
  for (const nodeId of order) reverted.push(...(await revertRun(db, run.id, input.workspace, { nodeId, log, force: input.force === true })).restored);
  // With a workspace per node, the run branch gives the next attempts their start: their earlier changes leave it too.
  const mergedCommits = new Map((await log.read({ types: ['node/merged'] })).map((event) => [event.nodeId ?? '', event.payload.commit]));
  const onBranch = order.flatMap((nodeId) => (mergedCommits.has(nodeId) ? [{ nodeId, commit: mergedCommits.get(nodeId)! }] : []));
  if (onBranch.length > 0) await revertOnRunBranch(input.workspace, run.id, onBranch, `rerun from ${input.from}`);
  const next = input.instruction === undefined ? plan : withInstruction(plan, input.from, input.instruction);
  const reason = `rerun from ${input.from}${input.instruction === undefined ? '' : ' with an instruction'}`;
  // A rerun stopped before its run began left the run approved: this one goes on from there.
  const saved = await savePlan(db, run.id, { plan: next, reason, status: 'approved', runStatus: 'approved', log });
  const version = saved.stored.version;
  const nodes = plan.nodes.map((node) => node.id).filter((id) => again.has(id));
  // A node that never started has nothing to reset.
  const resets = nodes.filter((id) => states.has(id));
  if (resets.length > 0) {
    await log.appendMany(resets.map((nodeId) => ({ type: 'node/reset' as const, nodeId, payload: { cause: 'rerun' as const, planVersion: version, reason, reverted: touched.has(nodeId) } })));
  }
  return { runId: run.id, from: input.from, fromVersion: stored.version, version, diff: saved.diff, nodes, reverted };
}

/** The node and every node that depends on it, through any chain of dependencies. */
export function rerunSet(plan: Plan, from: string): ReadonlySet<string> {
  return new Set([from, ...createReachability(plan).descendants(from)]);
}

function withInstruction(plan: Plan, nodeId: string, instruction: string): Plan {
  return { ...plan, nodes: plan.nodes.map((node) => (node.id === nodeId ? { ...node, instructions: withRerunInstruction(node.instructions, instruction) } : node)) };
}
