import { strictWritesOf, type Plan, type PlanNode } from '../../plan/plan-schema.js';
import type { NodeExecution, NodeOutcome } from '../../scheduler/schedulable-node.js';
import type { EventLog } from '../../session/event-log.js';
import type { SessionEvent } from '../../session/event-types.js';
import { Session } from '../../session/session.js';
import type { RunMemory } from '../views/run-recovery.js';
import { executePlanNode, type NodeRuntime } from './execute-plan-node.js';
import type { NodeFiles } from './node-files.js';
import { unkeptPromise } from './node-outcome.js';
import { hooksBetweenSteps, nodeEndHooks, nodeStartHooks } from './node-hooks.js';
import { handoffsFor } from './node-prompt.js';
import { nodeKeyDraft, reuseOrRevert, type ReuseContext, type ReuseSettings } from './node-reuse.js';
import type { NodeResult } from './run-options.js';
import { noCallSince, resumableAttempt, resumeSteps, startsOverReason, stepCheckpointer, trackStartedCalls, type ResumedAttempt, type StepResumeContext } from './step-resume.js';
import { readsOnly } from './reads-only.js';

/** What one node attempt in the run's own process works with. */
export interface NodeAttemptContext {
  readonly runId: string;
  readonly log: EventLog;
  readonly runtime: NodeRuntime;
  readonly files: NodeFiles;
  /** The run's plan as it is now (a replan may change it while the node runs). */
  readonly plan: () => Plan;
  readonly planVersion: () => number;
  /** The run's memory, kept current by the log: handoffs and boundaries. */
  readonly memory: RunMemory;
  /** What a merge conflict leads to (`onConflict`), as the log records it. */
  readonly onConflict?: 'replan' | 'pause';
  /** Reuse of results after a plan edit; without it nothing is keyed or reused. */
  readonly reuse?: ReuseSettings;
}

/**
 * One attempt: files put back if it ran before, a boundary, a fresh surface, the node itself; or,
 * for an attempt its process left running, the same surface going on from its last completed step
 * (`resumeSteps`). Each step that may have changed files ends with a checkpoint of them.
 * The workspace snapshot of a first attempt overlaps the write of its `node/started`; nothing
 * that must survive a crash (restoring files, the log, the node's tools) runs before it is stored.
 */
export async function attemptNode(context: NodeAttemptContext, nodeId: string, execution: NodeExecution): Promise<NodeOutcome<NodeResult>> {
  const { attempt, signal, durable } = execution;
  const { files, log, memory } = context;
  const plan = context.plan();
  const node = plan.nodes.find((candidate) => candidate.id === nodeId);
  if (node === undefined) return { status: 'failed', error: `node ${nodeId} is not in plan v${context.planVersion()}`, retryable: false };
  if (context.reuse?.recheck.has(nodeId) === true) {
    await durable;
    const kept = await reuseOrRevert(reuseContext(context), node, context.reuse);
    if (kept !== undefined) return { status: 'succeeded', result: kept };
  }
  const riskOf = (name: string): string | undefined => context.runtime.tools.riskOf?.(name);
  const steps = { log, files, riskOf };
  const { boundary, fromSeq, startedByStep, resume, opened, firstAttempt } = await beginAttempt(context, node, execution, steps);
  // Which steps started a call that may change files: those are checkpointed when they end.
  const unsubscribe = trackStartedCalls(log, nodeId, fromSeq, startedByStep);
  let checkpointed: { step: number; calls: number } | undefined;
  const onStepEnd = stepCheckpointer(steps, node, attempt, boundary, startedByStep, (step, calls) => (checkpointed = { step, calls }));
  // A fresh attempt's surface begins at its marker; one that goes on reads what its earlier steps left.
  const session = opened ?? (await Session.open(log, nodeId, { fromSeq }));
  try {
    // Past `durable`, every dependency's `node/succeeded` is stored, and so in the run's memory.
    const handoffs = handoffsFor(context.plan().nodes, node, memory.completed);
    // An isolated node runs (tools, commands, sandbox) in its own workspace.
    const workspace = files.workspaceFor?.(nodeId);
    const runtime = workspace === undefined ? context.runtime : { ...context.runtime, workspace };
    const writeScope = files.writeScopeFor(nodeId, node.writes);
    const beforeCommand = async (): Promise<void> => writeScope.beforeCommand?.();
    const hookContext = { hooks: runtime.hooks, runId: context.runId, nodeId, workspace: runtime.workspace, attempt, session, signal, beforeCommand };
    const blocked = await nodeStartHooks(hookContext);
    const worked =
      blocked ??
      (await executePlanNode(runtime, {
        runId: context.runId,
        plan: context.plan(),
        node,
        attempt,
        session,
        handoffs,
        writeScope,
        signal,
        ...(onStepEnd === undefined ? {} : { onStepEnd }),
        ...(resume === undefined ? {} : { resume }),
      }));
    const result = await nodeEndHooks(hookContext, worked);
    // An attempt that appended nothing (it failed before its instruction) stores its marker now.
    await log.release(nodeId);
    const otherWrites = context.plan().nodes.filter((other) => other.id !== nodeId).flatMap((other) => other.writes);
    const strictWrites = strictWritesOf(context.plan(), node);
    // Nothing ran in the workspace after the last checkpoint: the end need not look at the files again.
    const quietSinceCheckpoint = noCallSince(startedByStep, checkpointed) && !hooksBetweenSteps(runtime.hooks, nodeId);
    const end = await files.endNode(nodeId, node.writes, boundary, { otherWrites, merge: result.status === 'succeeded', message: commitMessage(node, attempt), strictWrites, firstAttempt, quietSinceCheckpoint });
    const { filesChanged, strayChanges = [] } = end;
    const overlapped = end.overlapped === undefined ? {} : { overlapped: [...end.overlapped] };
    if (strayChanges.length > 0) await log.append({ type: 'writes/exceeded', nodeId, payload: { paths: [...strayChanges], writes: [...node.writes], enforced: end.overreach === true, ...overlapped } });
    if (end.merged !== undefined) {
      const { commit, branch, keptYours } = end.merged;
      await log.append({ type: 'node/merged', nodeId, payload: { commit, branch, files: [...filesChanged], keptYours: [...keptYours] } });
    }
    if (end.conflicts !== undefined && end.branch !== undefined) {
      const conflicted = end.conflicts.map((conflict) => ({ path: conflict.path, hunks: conflict.hunks.map((hunk) => ({ line: hunk.line, ours: hunk.ours, theirs: hunk.theirs })) }));
      await log.append({ type: 'node/conflicted', nodeId, payload: { branch: end.branch, files: conflicted, onConflict: context.onConflict ?? 'replan' } });
      // Stopped by the run (a cancel, a pause), an attempt's change is not dropped: its step checkpoints (`refs/dagent/RUN/steps/NODE`) hold it for `resume` to go on from.
    } else if (end.branch !== undefined && end.merged === undefined && filesChanged.length > 0 && ((result.status === 'failed' && !signal.aborted) || end.overreach === true)) {
      await log.append({ type: 'workspace/discarded', nodeId, payload: { files: [...filesChanged], reason: end.overreach === true ? 'overreach' : 'failed' } });
    }
    if (result.status === 'failed') return result;
    if (end.conflict !== undefined) return { status: 'failed', error: end.conflict, retryable: false };
    if (end.overreach === true) return { status: 'failed', error: overreachError(nodeId, node.writes, strayChanges), retryable: false };
    const unkept = unkeptPromise({ nodeId, kind: node.kind, actions: result.actions ?? [], filesChanged, writes: node.writes });
    if (unkept !== undefined) return { status: 'failed', ...unkept, retryable: false };
    const keyed = context.reuse === undefined ? undefined : await nodeKeyDraft(reuseContext(context), node, session.answers());
    return { status: 'succeeded', result: { answer: result.answer, filesChanged, ...(keyed === undefined ? {} : { keyed }) } };
  } finally {
    unsubscribe();
    session.close();
  }
}

/** Why a node with `strictWrites` failed for changes beyond its writes (first line: what; then where to look). */
function overreachError(nodeId: string, writes: readonly string[], stray: readonly string[]): string {
  const declared = writes.length === 0 ? 'no writes' : `writes ${writes.join(', ')}`;
  return `node ${nodeId} changed files outside its declared writes, which strictWrites forbids: ${stray.join(', ')} (it declared ${declared}); its change was not merged\nwiden the node's writes in the plan, or drop strictWrites, and resume`;
}

/**
 * Where an attempt's files and surface begin: an attempt its process left running goes on from
 * its last completed step (`resumeSteps`); any other puts the files back if the node ran before,
 * takes a boundary and records it (`node/snapshotted`), which starts a fresh surface.
 */
async function beginAttempt(
  context: NodeAttemptContext,
  node: PlanNode,
  execution: NodeExecution,
  steps: StepResumeContext,
): Promise<{ boundary: unknown; fromSeq: number; startedByStep: Map<number, string[]>; resume?: ResumedAttempt['resume']; opened?: Session; firstAttempt?: boolean }> {
  const { attempt, durable } = execution;
  const { files, log, memory } = context;
  const open = resumableAttempt(files, node, memory.attemptToGoOn(node.id, context.planVersion()));
  if (open !== undefined) {
    await durable;
    const resumed = await resumeSteps(steps, node, attempt, open);
    if (resumed !== undefined) return resumed;
  }
  const earlier = memory.boundaries.get(node.id);
  const firstAttempt = earlier === undefined;
  if (earlier !== undefined && attempt > 1) {
    await durable;
    await files.restoreNode(node.id, earlier);
  }
  const boundary = await files.beginNode(node.id, node.writes, { readsOnly: readsOnly(context.runtime, node) });
  await durable;
  // Read before the marker's append reaches the run's memory.
  const firstOfNode = !memory.hasSurfaced(node.id);
  const startsOver = firstOfNode ? undefined : await startsOverReason(memory, node, context.planVersion());
  // The marker goes with the node's first append (its instruction: one write where there were
  // two), before any tool or hook can touch the files; stored, it reaches the run's memory too
  // (its boundary for a later attempt). Every append of the attempt comes after it.
  const opened = Session.opening(log, { type: 'node/snapshotted', nodeId: node.id, turn: 1, payload: { attempt, boundary, ...(startsOver === undefined ? {} : { startsOver }) } }, { firstOfNode });
  // `fromSeq` 0: what listens from here on hears only this attempt's appends.
  return { boundary, fromSeq: 0, startedByStep: new Map(), opened, firstAttempt };
}

/** A node's commit on the run branch: its id and attempt, title, and what it was told to do. */
function commitMessage(node: PlanNode, attempt: number): string {
  const instruction = node.command === undefined ? node.instructions : `${node.instructions}\n\ncommand: ${node.command}`;
  return `dagent: ${node.id} (attempt ${attempt}): ${node.title}\n\n${instruction}`.trim();
}

function reuseContext(context: NodeAttemptContext): ReuseContext {
  return { plan: context.plan(), planVersion: context.planVersion(), runtime: context.runtime, files: context.files, memory: context.memory, log: context.log };
}
