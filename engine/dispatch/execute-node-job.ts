import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { errorMessage } from '../errors.js';
import type { PlanNode } from '../plan/plan-schema.js';
import { nodeEndHooks, nodeStartHooks } from '../run/orchestration/node-hooks.js';
import { executePlanNode, warmNodePrompts, type NodeAttemptResult, type NodeRuntime } from '../run/orchestration/execute-plan-node.js';
import { BudgetGate } from '../run/budget/budget-gate.js';
import type { NodeFiles } from '../run/orchestration/node-files.js';
import { resumableAttempt, resumeSteps, startsOverReason, stepCheckpointer, trackStartedCalls, type ResumedAttempt, type StepResumeContext } from '../run/orchestration/step-resume.js';
import { unkeptPromise } from '../run/orchestration/node-outcome.js';
import { nodeKeyDraft } from '../run/orchestration/node-reuse.js';
import type { NodeWaitsFor } from '../scheduler/schedulable-node.js';
import { handoffsFor } from '../run/orchestration/node-prompt.js';
import type { RunRecord } from '../run/storage/run-store.js';
import type { RunMemory } from '../run/views/run-recovery.js';
import { readEvents, type EventLog } from '../session/event-log.js';
import { runLog } from '../session/run-log.js';
import { Session } from '../session/session.js';
import type { EventDraft, SessionEvent } from '../session/event-types.js';
import type { JobQueue, NodeJob } from './job-queue.js';
import { ClaimLostError } from './claim-lost.js';
import type { NodeClaim } from './node-claim.js';
import { JobClaims, type ClaimedJob } from './job-claims.js';
import type { ClaimsFirst } from './claims-first.js';
import type { RunWatch } from './run-watches.js';
import { WorkerRunFold } from './worker-run-fold.js';

/** What a worker brings to the runs it works on: its runtime (tools, models) and files per run. */
export interface RunWorkspace {
  readonly runtime: NodeRuntime;
  readonly files: NodeFiles;
  /**
   * Clone mode: puts the worker's clone at the run's base plus the patches of `dependencies` (in
   * the order given) before the node runs, and returns the node's own change as a patch after.
   */
  readonly clone?: {
    prepare(dependencies: readonly { readonly nodeId: string; readonly patch: string }[]): Promise<void>;
    patch(): Promise<string>;
  };
  /** Lets go of what the worker opened for the run (MCP servers, a language service, a workspace watch). */
  close?(): Promise<void>;
}

export interface NodeJobContext {
  readonly db: Kysely<Database>;
  readonly queue: JobQueue;
  /** This worker's id (host, pid and a random part). */
  readonly worker: string;
  readonly claimTtlMs?: number;
  readonly workspaceFor: (run: RunRecord) => Promise<RunWorkspace>;
  /** Aborted when the worker stops at once (not on a drain). */
  readonly signal: AbortSignal;
  /** Holds the run's watch while the node runs: its signal aborts the node when the run is asked to cancel from anywhere. */
  readonly watchRun?: (runId: string) => Promise<RunWatch>;
  readonly report?: (line: string) => void;
  /** The worker's claims go ahead of its nodes' work (`ClaimsFirst`). */
  readonly claimsFirst?: ClaimsFirst;
  /** The worker's jobs are claimed in rounds (`JobClaims`); without it each job claims alone. */
  readonly claims?: JobClaims;
}

/** What a job came to: run (and committed), skipped (not current, or another worker has it), or stale (its commit was refused). */
export type NodeJobOutcome = 'committed' | 'skipped' | 'stale';

/**
 * Runs one dispatched node attempt on a worker: claims the node (the next fencing token), puts
 * back the files of an earlier try, runs the node as the in-process runner does, and commits its
 * outcome as `attempt/finished` only if the claim is still current. Never throws for a node's own
 * failure: that is a committed `failed` outcome.
 */
export async function executeNodeJob(job: NodeJob, context: NodeJobContext, queued?: { readonly id: string }): Promise<NodeJobOutcome> {
  const { runId, nodeId } = job;
  // Until this job has claimed its node, the nodes this worker took after it wait to start their work.
  const claiming = context.claimsFirst?.begin();
  let claim: NodeClaim | undefined;
  let watching: Promise<RunWatch | undefined> | undefined;
  try {
    // With the jobs this worker took meanwhile: the claim, the checks, `attempt/claimed` (`JobClaims`).
    const taken = await (context.claims ?? new JobClaims(context)).take(job, queued?.id).finally(() => claiming?.());
    if (taken === undefined) return 'skipped';
    ({ claim } = taken);
    context.report?.(`${nodeId} (run ${runId}, attempt ${job.attempt}, token ${claim.token}) started`);
    await Promise.all([context.claimsFirst?.settled(), taken.leftoversDropped]);
    // The run's watch (the run's first node here starts following its log: reads of their own) is
    // entered beside the node's setup (its workspace, plan and fold); the node's work waits for it.
    watching = context.watchRun?.(runId) ?? Promise.resolve(undefined);
    const log = runLog(context.db, runId);
    const { keyed, ...outcome } = await runClaimedNode(taken, job, log, context, watching.then((watch) => watch?.signal));
    // The statement that stores the outcome releases the claim too (`outcomeFence`). A node stopped
    // because its claim was lost (a stalled process whose claim ran out) did not fail: the fence
    // refuses the outcome before it is sent (`assertHeld`), and the node is left to be taken over.
    // A succeeded node's reuse key goes in the same statement, just before it.
    const finished: EventDraft<'attempt/finished'> = { type: 'attempt/finished', nodeId, payload: { attempt: job.attempt, token: claim.token, worker: context.worker, ...outcome } };
    await log.appendMany(keyed === undefined ? [finished] : [keyed, finished], { fence: claim.outcomeFence() });
    context.report?.(`${nodeId} (run ${runId}) ${outcome.outcome}`);
    // The outcome is committed (the statement that stored it notified the run's scheduler, which
    // hears its workers' outcomes on a channel of their own): the scheduler finds it whether or
    // not the claim is released yet.
    await claim.release();
    return 'committed';
  } catch (error) {
    if (error instanceof ClaimLostError) {
      context.report?.(`${nodeId} (run ${runId}): ${error.message}`);
      return 'stale';
    }
    throw error;
  } finally {
    claiming?.();
    await claim?.release();
    (await watching)?.leave();
  }
}

type AttemptOutcome =
  | { readonly outcome: 'succeeded'; readonly answer: string; readonly filesChanged: string[]; readonly patch?: string; readonly keyed?: EventDraft<'node/keyed'> }
  | { readonly outcome: 'failed'; readonly error: string; readonly retryable: boolean; readonly filesChanged?: string[]; readonly waitsFor?: NodeWaitsFor; readonly keyed?: never };

async function runClaimedNode({ run, claim, prefetched }: ClaimedJob, job: NodeJob, log: EventLog, context: NodeJobContext, watched: Promise<AbortSignal | undefined>): Promise<AttemptOutcome> {
  const workspace = await context.workspaceFor(run);
  // The same fold of the log as the run controller's (handoffs, patches, boundaries), the run's budget and plan, kept by this worker for the run.
  const fold = runFoldOf(workspace, context.db, run.id);
  const { plan } = await fold.plan(run);
  const node = plan.nodes.find((candidate) => candidate.id === job.nodeId);
  if (node === undefined) return { outcome: 'failed', error: `node ${job.nodeId} is not in the run's approved plan`, retryable: false };
  // Begun with its claim's round (beside its claim, or once its checks saw the node started); else read now. Either way the
  // fold holds the node's start, and so its dependencies' outcomes, before the node uses it.
  await (prefetched === undefined ? fold.refresh() : prefetched.catch(() => fold.refresh()));
  await fold.readStartOf(job.nodeId, job.attempt);
  // The run's budget holds here too: the spend is the log's (every process's calls), a refusal stops this node and, heard by the scheduler, pauses the run.
  const atBudget = new AbortController();
  const gate = new BudgetGate({ log, budget: fold.budget, nodeBudget: (id) => plan.nodes.find((candidate) => candidate.id === id)?.budget, onReached: (reason) => atBudget.abort(new Error(reason)) });
  const cancelled = await watched;
  const signal = AbortSignal.any([context.signal, claim.lost, atBudget.signal, ...(cancelled === undefined ? [] : [cancelled])]);
  try {
    const memory = fold.memory;
    const patches = ancestorPatches(memory, plan.nodes, node);
    // Every event of the node (its messages, tool calls, approvals) carries the claim check in the
    // statement that stores it: once another worker has the node, nothing of this one reaches the log.
    const fenced = log.withFence(claim.appendFence());
    const steps: StepResumeContext = { log: fenced, files: workspace.files, riskOf: (name) => workspace.runtime.tools.riskOf?.(name), filesLeftHere: workspace.clone === undefined };
    const { boundary, fromSeq, startedByStep, resume, opened, firstAttempt } = await beginClaimedAttempt(workspace, fold, patches, node, { attempt: job.attempt, planVersion: run.planVersion }, steps);
    const untrack = trackStartedCalls(fenced, job.nodeId, fromSeq, startedByStep);
    const onStepEnd = stepCheckpointer(steps, node, job.attempt, boundary, startedByStep);
    // A fresh surface begins at its marker, held to go with its first append: the log is not read back (as in the scheduler's process).
    const session = opened ?? (await Session.open(fenced, job.nodeId, { fromSeq }));
    const scope = workspace.files.writeScopeFor(job.nodeId, node.writes);
    let result: NodeAttemptResult;
    let answers: readonly SessionEvent[] = [];
    try {
      const hookContext = { hooks: workspace.runtime.hooks, runId: run.id, nodeId: job.nodeId, workspace: workspace.runtime.workspace, attempt: job.attempt, session, signal, beforeCommand: async () => scope.beforeCommand?.() };
      result = (await nodeStartHooks(hookContext)) ?? (await executePlanNode({ ...workspace.runtime, gate }, {
        runId: run.id,
        plan,
        node,
        attempt: job.attempt,
        session,
        handoffs: handoffsFor(plan.nodes, node, memory.completed),
        // File writes happen under the claim (see `NodeClaim.fence`); commands stop when it runs out.
        writeScope: { check: (path) => scope.check(path), beforeWrite: (path) => scope.beforeWrite(path), claim },
        signal,
        ...(onStepEnd === undefined ? {} : { onStepEnd }),
        ...(resume === undefined ? {} : { resume }),
      }));
      result = await nodeEndHooks(hookContext, result);
      answers = session.answers();
      // An attempt that appended nothing (it failed before its instruction) stores its marker now.
      await fenced.release(job.nodeId);
    } finally {
      untrack();
      session.close();
    }
    const otherWrites = plan.nodes.filter((other) => other.id !== job.nodeId).flatMap((other) => other.writes);
    // A stale worker does not record the node's changes over the restarted node's (checked before
    // the first write, and only when there is one: a node that changed nothing records nothing;
    // not under the fence, which would hold a store connection while recording needs others).
    const { filesChanged, strayChanges = [] } = await workspace.files.endNode(job.nodeId, node.writes, boundary, { otherWrites, beforeRecording: () => claim.ensureCurrent(), firstAttempt });
    if (strayChanges.length > 0) await fenced.append({ type: 'writes/exceeded', nodeId: job.nodeId, payload: { paths: [...strayChanges] } });
    if (result.status === 'failed') return { outcome: 'failed', error: result.error, retryable: result.retryable, filesChanged: [...filesChanged] };
    // The same checks as a node run in the scheduler's process: an outcome that cannot lie.
    const unkept = unkeptPromise({ nodeId: node.id, kind: node.kind, actions: result.actions ?? [], filesChanged, writes: node.writes });
    if (unkept !== undefined) return { outcome: 'failed', ...unkept, retryable: false, filesChanged: [...filesChanged] };
    // In the shared working copy, what the result depends on, for a later plan version to keep it
    // by (`reuseOrRevert`, in the scheduler's process); a clone's files are this worker's alone.
    const keyed = workspace.clone !== undefined || run.planVersion === null ? undefined : await nodeKeyDraft({ plan, planVersion: run.planVersion, runtime: workspace.runtime, files: workspace.files, memory: fold.memory }, node, answers);
    const patch = workspace.clone === undefined ? undefined : await workspace.clone.patch();
    return { outcome: 'succeeded', answer: result.answer, filesChanged: [...filesChanged], ...(patch === undefined ? {} : { patch }), ...(keyed === undefined ? {} : { keyed }) };
  } catch (error) {
    if (error instanceof ClaimLostError) throw error;
    return { outcome: 'failed', error: `on worker ${context.worker}: ${errorMessage(error)}`, retryable: true };
  }
}

/**
 * Where a claimed attempt's files and surface begin. The attempt another worker held when it
 * stopped (its claim ran out) goes on from its last completed step, as a resumed run does
 * (`resumeSteps`): its answers and tool results are the log's, its files that step's checkpoint;
 * so does one the run's cancel or pause stopped, once the run is resumed on workers; either only
 * under a plan version that left the node's work as it was (`RunMemory.attemptToGoOn`). Any other
 * begins afresh: files at the node's start (the clone prepared from the dependencies' patches, or
 * a try before this one put back), a boundary recorded as `node/snapshotted`.
 */
async function beginClaimedAttempt(
  workspace: RunWorkspace,
  fold: WorkerRunFold,
  patches: readonly AncestorPatch[],
  node: PlanNode,
  { attempt, planVersion }: { readonly attempt: number; readonly planVersion: number | null },
  steps: StepResumeContext,
): Promise<{ boundary: unknown; fromSeq: number; startedByStep: Map<number, string[]>; resume?: ResumedAttempt['resume']; opened?: Session; firstAttempt?: boolean }> {
  // A clone starts from the run's base and the dependencies' patches, whether the node goes on or begins.
  await workspace.clone?.prepare(patches);
  const { memory } = fold;
  // An attempt that began and never ended (its worker stopped), taken over as the same attempt, or
  // one the run's stop ended, gone on from by the next: its model calls so far say whether it can go on from a step.
  const begun = memory.openAttempt(node.id);
  const candidate = planVersion === null ? undefined : memory.attemptToGoOn(node.id, planVersion, { onWorkers: true });
  const toGoOn = candidate !== undefined && candidate === begun && begun.attempt !== attempt ? undefined : candidate;
  const open = toGoOn === undefined ? undefined : resumableAttempt(workspace.files, node, { ...toGoOn, modelCalls: await fold.modelCallsSince(node.id, toGoOn.fromSeq) });
  if (open !== undefined) {
    const resumed = await resumeSteps(steps, node, attempt, open);
    if (resumed !== undefined) return resumed;
  }
  // In the shared workspace, a try before this one (a worker that died, a failed attempt) left files: put them back first.
  const earlier = memory.boundaries.get(node.id);
  if (earlier !== undefined && workspace.clone === undefined) await workspace.files.restoreNode(node.id, earlier);
  const boundary = await workspace.files.beginNode(node.id, node.writes);
  // The run's memory was read before this marker: whether an attempt of the node ever began a surface.
  const firstOfNode = !memory.hasSurfaced(node.id);
  const startsOver = firstOfNode || planVersion === null ? undefined : await startsOverReason(memory, node, planVersion, (earlier) => fold.modelCallsSince(node.id, earlier.fromSeq));
  // The marker goes with the node's first append (as in the scheduler's process: `attemptNode`).
  const opened = Session.opening(steps.log, { type: 'node/snapshotted', nodeId: node.id, turn: 1, payload: { attempt, boundary, ...(startsOver === undefined ? {} : { startsOver }) } }, { firstOfNode });
  // `fromSeq` 0: what listens from here on hears only this attempt's appends.
  return { boundary, fromSeq: 0, startedByStep: new Map(), opened, firstAttempt: earlier === undefined };
}

/** Each run's fold on this worker, for as long as the worker keeps the run's workspace. */
const runFolds = new WeakMap<RunWorkspace, WorkerRunFold>();

/**
 * What a worker's first node of `run` would otherwise do on its way to the model, done as soon as
 * the run is dispatched (`dispatch/started`), before any of its jobs arrives: the run's workspace
 * opened (tools, runtime, files), its plan read and its log folded, and its nodes' prompts
 * assembled and counted with the run's runtime. Rejects as the first node would have failed (a run
 * of another workspace mode, say): the caller leaves that to the node.
 */
export async function prepareRun(context: Pick<NodeJobContext, 'db' | 'workspaceFor'>, run: RunRecord): Promise<void> {
  const workspace = await context.workspaceFor(run);
  const fold = runFoldOf(workspace, context.db, run.id);
  await Promise.all([fold.refresh(), fold.plan(run).then(({ plan }) => warmNodePrompts(workspace.runtime, plan))]);
}

/** Brings the worker's fold of `run` up to what is committed now (`JobClaimsContext.prefetch`). */
export async function refreshRunFold(context: Pick<NodeJobContext, 'db' | 'workspaceFor'>, run: RunRecord): Promise<void> {
  await runFoldOf(await context.workspaceFor(run), context.db, run.id).refresh();
}

function runFoldOf(workspace: RunWorkspace, db: Kysely<Database>, runId: string): WorkerRunFold {
  let fold = runFolds.get(workspace);
  if (fold === undefined) {
    fold = new WorkerRunFold(db, runId);
    runFolds.set(workspace, fold);
  }
  return fold;
}

interface AncestorPatch {
  readonly nodeId: string;
  readonly patch: string;
}

/**
 * In clone mode, the patches of every node `node` depends on, directly or not, in the order they
 * succeeded: what its clone is put at before it runs. (Its handoffs are its direct dependencies'
 * results only, as in the scheduler's process: `handoffsFor`.)
 */
function ancestorPatches(memory: RunMemory, nodes: readonly PlanNode[], node: PlanNode): AncestorPatch[] {
  const ancestors = ancestorsOf(nodes, node);
  return [...memory.completed.keys()].flatMap((nodeId) => {
    const patch = memory.patches.get(nodeId);
    return patch === undefined || !ancestors.has(nodeId) ? [] : [{ nodeId, patch }];
  });
}

/** Every node `node` depends on, directly or through others. */
function ancestorsOf(nodes: readonly PlanNode[], node: PlanNode): Set<string> {
  const byId = new Map(nodes.map((candidate) => [candidate.id, candidate]));
  const seen = new Set<string>();
  const stack = [...node.dependsOn];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.dependsOn ?? []));
  }
  return seen;
}
