import type { StepPosition } from '../../context/runtime-context.js';
import { nodeKind } from '../../plan/node-kinds.js';
import type { PlanNode } from '../../plan/plan-schema.js';
import type { EventLog } from '../../session/event-log.js';
import type { OpenAttempt, RunMemory } from '../views/run-recovery.js';
import type { NodeFiles } from './node-files.js';
import { isEffectfulStep, planStepResume, settleWrites, STEP_RESUME_EVENT_TYPES, type ResumingPlan, type RiskOf, type StepResumeEvent } from './step-resume-plan.js';

/**
 * `open`, the attempt of `node` that was running when its process stopped or the run stopped it
 * (`RunMemory.attemptToGoOn`), when it can go on from its last completed step: an agent node whose
 * model answered at least once, with files that can be put back to a step. Otherwise undefined:
 * the node starts over (its files put back to its start).
 */
export function resumableAttempt(files: NodeFiles, node: PlanNode, open: OpenAttempt | undefined): OpenAttempt | undefined {
  if (open === undefined || open.modelCalls === 0 || !nodeKind(node.kind).runsModel) return undefined;
  return files.resumeNode === undefined ? undefined : open;
}

/**
 * Why `node` begins afresh where an earlier attempt had model answers it could have gone on from
 * (`RunMemory.whyStartsOver`), for its new attempt's marker (`startsOver`); undefined otherwise.
 * `countCalls`: that attempt's answers (a worker's fold reads them; the run's memory counts them).
 */
export async function startsOverReason(memory: RunMemory, node: PlanNode, planVersion: number, countCalls: (attempt: OpenAttempt) => Promise<number> | number = (attempt) => attempt.modelCalls): Promise<string | undefined> {
  if (!nodeKind(node.kind).runsModel) return undefined;
  const why = memory.whyStartsOver(node.id, planVersion);
  if (why === undefined) return undefined;
  const calls = await countCalls(why.attempt);
  return calls === 0 ? undefined : `${why.reason}; its ${calls} answered model call${calls === 1 ? ' is' : 's are'} made again`;
}

export interface StepResumeContext {
  readonly log: EventLog;
  readonly files: NodeFiles;
  readonly riskOf: RiskOf;
  /**
   * Whether the files an interrupted attempt left are here to go on from (the same workspace);
   * false on a worker's own clone, where only the logged checkpoints are: an attempt that would go
   * on from files as the other process left them starts over instead, unless the run's stop let
   * its step end with a checkpoint of them. Default true.
   */
  readonly filesLeftHere?: boolean;
}

/** What a resumed attempt runs with: the surface's start, the boundary its files count from, how its open calls settle. */
export interface ResumedAttempt {
  readonly fromSeq: number;
  readonly boundary: unknown;
  readonly resume: { readonly rerunCalls: ReadonlySet<string>; readonly interruptedContent: string };
  /** Tool names of calls started so far, by step: which steps are effectful (checkpointed). */
  readonly startedByStep: Map<number, string[]>;
}

/**
 * Readies an interrupted attempt to go on: decides what runs again (`planStepResume`), puts the
 * files back (to the last completed step's checkpoint), takes a missing checkpoint, and records it
 * all as `step/resumed`. Undefined when nothing of the attempt is worth keeping (it starts over).
 */
export async function resumeSteps(context: StepResumeContext, node: PlanNode, attempt: number, open: OpenAttempt): Promise<ResumedAttempt | undefined> {
  const { log, files } = context;
  const events = await log.read({ nodeId: node.id, types: STEP_RESUME_EVENT_TYPES, fromSeq: open.fromSeq });
  const planned = planStepResume(events, context.riskOf);
  if (planned.kind === 'restart' || files.resumeNode === undefined) return undefined;
  // Files only the stopped process had go on only from the checkpoint its step took after the run's stop.
  if (planned.files.kind === 'as-left' && planned.files.checkpoint === undefined && context.filesLeftHere === false) return undefined;
  const restore = await files.resumeNode(node.id, node.writes, open.boundary, planned.files);
  const plan = settleWrites(planned, restore.unrestorable);
  if (plan.checkpointNow) await checkpointStep(context, node, attempt, open.boundary, { turn: 1, step: plan.fromStep });
  await log.append({
    type: 'step/resumed',
    nodeId: node.id,
    turn: 1,
    step: plan.fromStep,
    payload: {
      attempt,
      fromStep: plan.fromStep,
      rerun: plan.rerun,
      ...(plan.rerunCalls.length === 0 ? {} : { toolCallIds: [...plan.rerunCalls], toolNames: plan.rerunCalls.map((id) => toolNameOf(events, id)) }),
      interrupted: [...plan.interrupted],
      restored: [...restore.restored],
      modelCalls: plan.modelCalls,
      saved: plan.saved,
      savedCostUsd: plan.savedCostUsd,
    },
  });
  const startedByStep = new Map<number, string[]>();
  for (const event of events) if (event.type === 'tool/call') startedByStep.set(event.step, [...(startedByStep.get(event.step) ?? []), event.payload.name]);
  return { fromSeq: open.fromSeq, boundary: open.boundary, resume: { rerunCalls: new Set(plan.rerunCalls), interruptedContent: interruptedContent(plan, restore.unrestorable) }, startedByStep };
}

/**
 * Keeps `startedByStep` current from the log: the tool names of the calls the node's attempt
 * (from `fromSeq`) starts, by step. Returns the unsubscribe.
 */
export function trackStartedCalls(log: EventLog, nodeId: string, fromSeq: number, startedByStep: Map<number, string[]>): () => void {
  return log.onNodeAppend(nodeId, (events) => {
    for (const event of events) {
      if (event.type !== 'tool/call' || event.seq < fromSeq) continue;
      startedByStep.set(event.step, [...(startedByStep.get(event.step) ?? []), event.payload.name]);
    }
  });
}

/**
 * The step-end hook of a node attempt: after a step in which a call started that may change files
 * (not `read`), the files are checkpointed and `step/checkpointed` is appended. `startedByStep` is
 * kept current from the log by the caller. `checkpointed` hears of each checkpoint: its step, and
 * how many calls that step had started.
 */
export function stepCheckpointer(
  context: StepResumeContext,
  node: PlanNode,
  attempt: number,
  boundary: unknown,
  startedByStep: ReadonlyMap<number, readonly string[]>,
  checkpointed?: (step: number, calls: number) => void,
): ((position: StepPosition) => Promise<void>) | undefined {
  if (context.files.checkpointNode === undefined) return undefined;
  return async (position) => {
    const calls = startedByStep.get(position.step) ?? [];
    if (!isEffectfulStep(calls, context.riskOf)) return;
    if (await checkpointStep(context, node, attempt, boundary, position)) checkpointed?.(position.step, calls.length);
  };
}

/** Whether no call started after a checkpoint (`step`, with `calls` started by then): the workspace is as the checkpoint holds it, but for hooks. */
export function noCallSince(startedByStep: ReadonlyMap<number, readonly string[]>, checkpoint: { readonly step: number; readonly calls: number } | undefined): boolean {
  if (checkpoint === undefined) return false;
  return [...startedByStep].every(([step, calls]) => step < checkpoint.step || (step === checkpoint.step && calls.length === checkpoint.calls) || calls.length === 0);
}

async function checkpointStep(context: StepResumeContext, node: PlanNode, attempt: number, boundary: unknown, position: StepPosition): Promise<boolean> {
  const checkpoint = await context.files.checkpointNode?.(node.id, node.writes, boundary);
  if (checkpoint === undefined) return false;
  await context.log.append({ type: 'step/checkpointed', nodeId: node.id, turn: position.turn, step: position.step, payload: { attempt, boundary: checkpoint } });
  return true;
}

/** The tool a call of the attempt asked for, as its model's answer names it. */
function toolNameOf(events: readonly StepResumeEvent[], toolCallId: string): string {
  for (const event of events) {
    if (event.type !== 'assistant/message') continue;
    const call = event.payload.toolCalls.find((candidate) => candidate.id === toolCallId);
    if (call !== undefined) return call.name;
  }
  return 'unknown';
}

/** What the model reads for a call that had started to write or run a command when the process stopped. */
function interruptedContent(plan: ResumingPlan, unrestorable: readonly string[]): string {
  const files =
    plan.files.kind === 'as-left'
      ? 'Its effect on the files is unknown.'
      : unrestorable.length > 0
        ? `The files this node may write were put back to how they were before this step, except ${unrestorable.join(', ')}, whose earlier content was not kept; anything it did outside them is unknown.`
        : 'The files this node may write were put back to how they were before this step; anything it did outside them is unknown.';
  return `interrupted: the process stopped while this call ran, and it is not run again. ${files} Check the state, and make the call again if it is still needed.`;
}
