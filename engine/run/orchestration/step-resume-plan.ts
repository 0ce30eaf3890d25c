import type { Usage } from '../../model/model-provider.js';
import type { SessionEvent } from '../../session/event-types.js';
import { isStopResult } from '../../session/tool-result-meta.js';

/** The events of an interrupted attempt that decide how it goes on. */
export const STEP_RESUME_EVENT_TYPES = ['assistant/message', 'tool/call', 'tool/result', 'step/checkpointed', 'request/header'] as const;

export type StepResumeEvent = SessionEvent<(typeof STEP_RESUME_EVENT_TYPES)[number]>;

/** A tool's risk as the tool runtime declares it; undefined for a tool it does not know. */
export type RiskOf = (toolName: string) => string | undefined;

/**
 * Where the node's files go before it goes on: a step's checkpoint, the node's start, or as the
 * stopped attempt left them. `as-left` carries the checkpoint its last step took after its calls
 * were stopped, when there is one (the run's stop lets a step end): it holds those files where they
 * are gone (a worktree removed when the run stopped).
 */
export type FilesTarget =
  | { readonly kind: 'checkpoint'; readonly step: number; readonly checkpoint: unknown }
  | { readonly kind: 'start' }
  | { readonly kind: 'as-left'; readonly checkpoint?: unknown };

export type StepResumePlan =
  /** Nothing to keep (no model call had answered): the node starts over, as a new attempt. */
  | { readonly kind: 'restart' }
  | {
      readonly kind: 'resume';
      /** The last step whose model call and tool calls all completed. */
      readonly fromStep: number;
      readonly files: FilesTarget;
      /** The last completed step wrote or ran a command and has no checkpoint: take it now (the files are as it left them). */
      readonly checkpointNow: boolean;
      readonly rerun: 'model-call' | 'tool-calls' | 'none';
      /** Calls of the interrupted step that run again: read-only, never started, or file writes whose files were put back. */
      readonly rerunCalls: readonly string[];
      /** Of `rerunCalls`, the file writes: they run again only if every file went back (`settleWrites`). */
      readonly rerunWrites: readonly string[];
      /** Calls of the interrupted step that had started to write or run a command: the model is told, they do not run again. */
      readonly interrupted: readonly string[];
      readonly modelCalls: number;
      readonly saved: Usage;
      readonly savedCostUsd: number;
    };

/**
 * How a node attempt that was running when its process stopped, or that the run's stop (a cancel,
 * a pause) ended, goes on (pure). Its recorded model answers and tool results are kept, but for
 * the results of the stop itself (`isStopResult`): those calls were in flight. What was in flight
 * is decided by the step it belongs to:
 * - the model call after the last completed step: the files go back to that step's checkpoint and
 *   the call is made again (the one call paid twice);
 * - tool calls of a step whose answer is recorded: the files go back to the previous step's
 *   checkpoint when nothing of this step that changes files completed (so a half-done write or
 *   command is undone); otherwise they stay as left, since undoing a completed call would
 *   contradict its recorded result. A call that never started, or a read-only one, runs again; a
 *   file write (`write` risk: it touches only files the checkpoint holds) runs again once its files
 *   are back as they were before it, which makes it the same call; a command, a network call or a
 *   write whose files could not go back is closed as interrupted (its effect may reach past the
 *   files a checkpoint holds, so running it twice is not safe).
 * A step is "effectful" when one of its calls started (`tool/call`) with a risk other than `read`:
 * exactly the steps the runtime checkpoints (`isEffectfulStep`).
 */
export function planStepResume(events: readonly StepResumeEvent[], riskOf: RiskOf): StepResumePlan {
  const answers = events.filter((event): event is SessionEvent<'assistant/message'> => event.type === 'assistant/message');
  const last = answers.at(-1);
  if (last === undefined) return { kind: 'restart' };
  const results = new Set(events.flatMap((event) => (event.type === 'tool/result' && !isStopResult(event.payload) ? [event.payload.toolCallId] : [])));
  const started = new Set(events.flatMap((event) => (event.type === 'tool/call' ? [event.payload.toolCallId] : [])));
  const checkpoints = events.filter((event): event is SessionEvent<'step/checkpointed'> => event.type === 'step/checkpointed');
  const effectful = (id: string, name: string): boolean => started.has(id) && riskOf(name) !== 'read';
  const checkpointUpTo = (step: number): FilesTarget => {
    const found = checkpoints.filter((event) => event.step <= step).at(-1);
    return found === undefined ? { kind: 'start' } : { kind: 'checkpoint', step: found.step, checkpoint: found.payload.boundary };
  };
  // A checkpoint of the step in flight was taken after its calls were stopped (the run's stop let the step end).
  const asLeft = (step: number): FilesTarget => {
    const taken = checkpoints.filter((event) => event.step === step).at(-1);
    return taken === undefined ? { kind: 'as-left' } : { kind: 'as-left', checkpoint: taken.payload.boundary };
  };
  const totals = savedBy(answers);
  const open = last.payload.toolCalls.filter((call) => !results.has(call.id));
  if (open.length > 0) {
    const completedEffect = last.payload.toolCalls.some((call) => results.has(call.id) && effectful(call.id, call.name));
    const again = (call: { id: string; name: string }): boolean => !effectful(call.id, call.name) || (!completedEffect && riskOf(call.name) === 'write');
    const interrupted = open.filter((call) => !again(call)).map((call) => call.id);
    const rerunCalls = open.filter(again).map((call) => call.id);
    const rerunWrites = open.filter((call) => again(call) && effectful(call.id, call.name)).map((call) => call.id);
    return {
      kind: 'resume',
      fromStep: last.step - 1,
      files: completedEffect ? asLeft(last.step) : checkpointUpTo(last.step - 1),
      checkpointNow: false,
      rerun: rerunCalls.length > 0 ? 'tool-calls' : 'none',
      rerunCalls,
      rerunWrites,
      interrupted,
      ...totals,
    };
  }
  const stepEffectful = last.payload.toolCalls.some((call) => effectful(call.id, call.name));
  const checkpointed = checkpoints.some((event) => event.step === last.step);
  const checkpointNow = stepEffectful && !checkpointed;
  const modelCallInFlight = last.payload.toolCalls.length > 0 && events.some((event) => event.type === 'request/header' && event.step > last.step);
  return {
    kind: 'resume',
    fromStep: last.step,
    files: checkpointNow ? { kind: 'as-left' } : checkpointUpTo(last.step),
    checkpointNow,
    rerun: modelCallInFlight ? 'model-call' : 'none',
    rerunCalls: [],
    rerunWrites: [],
    interrupted: [],
    ...totals,
  };
}

/**
 * After the files were put back: when some could not be (their content at the checkpoint is not
 * held), a write in flight may have been applied already, so it is closed as interrupted instead
 * of running twice.
 */
export function settleWrites(plan: ResumingPlan, unrestorable: readonly string[]): ResumingPlan {
  if (unrestorable.length === 0 || plan.rerunWrites.length === 0) return plan;
  const writes = new Set(plan.rerunWrites);
  const rerunCalls = plan.rerunCalls.filter((id) => !writes.has(id));
  return { ...plan, rerunCalls, rerunWrites: [], interrupted: [...plan.interrupted, ...plan.rerunWrites], rerun: rerunCalls.length > 0 ? 'tool-calls' : 'none' };
}

export type ResumingPlan = Extract<StepResumePlan, { kind: 'resume' }>;

/** Whether a step's calls changed (or may have changed) files: one started with a risk other than `read`. */
export function isEffectfulStep(startedCalls: readonly string[], riskOf: RiskOf): boolean {
  return startedCalls.some((name) => riskOf(name) !== 'read');
}

function savedBy(answers: readonly SessionEvent<'assistant/message'>[]): { modelCalls: number; saved: Usage; savedCostUsd: number } {
  const saved = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };
  let savedCostUsd = 0;
  for (const answer of answers) {
    const usage = answer.payload.usage;
    if (usage !== undefined) {
      saved.input += usage.input;
      saved.output += usage.output;
      saved.cacheHit += usage.cacheHit;
      saved.reasoning += usage.reasoning;
    }
    savedCostUsd += answer.payload.costUsd ?? 0;
  }
  return { modelCalls: answers.length, saved, savedCostUsd };
}
