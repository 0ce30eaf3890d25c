import { attachImages, ImageReferenceError } from '../context/image-references.js';
import type { StepPosition } from '../context/runtime-context.js';
import type { ImageAttachment } from '../model/model-message.js';
import type { Usage } from '../model/model-provider.js';
import type { Session } from '../session/session.js';
import { agentStep, finishedDraft } from './agent-step.js';
import { DEFAULT_TOOL_BATCH_TIMEOUT_MS, executeToolCalls } from './execute-tool-calls.js';
import { spentSoFar, type AgentTotals } from './agent-totals.js';
import type { EndReason } from './end-reason.js';
import { resumedModel, switchModel } from './model-fallback.js';
import { DEFAULT_AGENT_LIMITS, abortedBecause, checkStopConditions, type AgentLimits, type StopVerdict } from './stop-conditions.js';
import type { RunAgentOptions } from './run-agent-options.js';

export interface AgentOutcome {
  readonly reason: EndReason;
  /** The final answer (the last response without tool calls), or the last text when stopped early. */
  readonly answer: string;
  readonly detail?: string;
  /** The same attempt would fail the same way (an image the model cannot take): not worth a retry. */
  readonly permanent?: boolean;
  readonly steps: number;
  readonly usage: Usage;
  readonly costUsd: number;
}

/**
 * One ReAct agent (SPEC §3): pins the instruction and handoffs once, then checks the exit
 * conditions and takes a step (`agentStep`) until a step or a condition ends it. Always ends with a
 * reason from a closed set; nothing escapes as an exception except a failure to write the log.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentOutcome> {
  // The last step's end (a node's checkpoint of its files) runs while the next step asks the model.
  const stepEnd = new PendingStepEnd();
  try {
    return await stepsUntilEnd(options, stepEnd);
  } finally {
    // Ended by a failure to write the log: the last step's end is not left running into the node's end.
    await stepEnd.settled().catch(() => undefined);
  }
}

async function stepsUntilEnd(options: RunAgentOptions, stepEnd: PendingStepEnd): Promise<AgentOutcome> {
  const { session, signal } = options;
  const limits = { ...DEFAULT_AGENT_LIMITS, ...options.limits };
  const turn = options.turn ?? 1;
  const totals = spentSoFar(session);
  let lastText = '';
  let active = await resumedModel(options);
  const outcome = (reason: EndReason, detail?: string, permanent?: boolean): AgentOutcome => ({
    reason,
    answer: lastText,
    steps: session.lastStep,
    usage: totals.usage,
    costUsd: totals.costUsd,
    ...(detail === undefined ? {} : { detail }),
    ...(permanent === true ? { permanent } : {}),
  });
  const finish = async (reason: EndReason, detail?: string, permanent?: boolean): Promise<AgentOutcome> => {
    await stepEnd.settled();
    await active.options.compactor?.release?.(session).catch(() => undefined);
    await session.log.append(finishedDraft(session, turn, session.lastStep, reason, detail));
    return outcome(reason, detail, permanent);
  };

  await settleOpenToolCalls(options);
  const refused = await appendInstruction(options, turn);
  if (refused !== undefined) return finish('error', refused, true);

  // The surface ends with an answer (its process stopped after it): the agent was done, no call is made again.
  const answered = lastAnswer(session);
  if (answered !== undefined) {
    lastText = answered;
    return finish('done');
  }

  let overflowRetried = false;
  for (;;) {
    await session.countsReady();
    const stop = stopCondition(session, totals, signal, limits);
    if (stop !== undefined) return finish(stop.reason, stop.detail);
    // A node paused from outside (`dagent pause`) waits here, between two steps; a cancel ends it as aborted.
    await options.steering?.holdWhilePaused(signal);
    if (signal.aborted) continue;

    const position: StepPosition = { turn, step: session.lastStep + 1 };
    const current = active.options;
    const verdict = await agentStep(current, position, totals, () => stepEnd.settled());
    if (verdict.kind !== 'overflow' && verdict.text !== undefined && verdict.text.trim() !== '') lastText = verdict.text;
    switch (verdict.kind) {
      case 'continue':
        overflowRetried = false;
        await stepEnd.begin(current, position);
        continue;
      case 'done':
        // The step stored its final answer with `agent/finished`.
        return outcome('done');
      case 'stop': {
        const next = verdict.fallback === undefined ? undefined : await switchModel(active, options, verdict.fallback, verdict.detail, position);
        if (next === undefined) return finish(verdict.reason, verdict.detail, verdict.permanent);
        await releaseLeft(current, next.options);
        active = next;
        continue;
      }
      case 'overflow': {
        // Compact once and try the step again; a second overflow in a row goes to the next model, or ends the agent.
        if (!overflowRetried && current.compactor !== undefined) {
          overflowRetried = true;
          if (await current.compactor.onContextOverflow(session, await current.prompt.assemble(), signal, current.beforeCompact, current.gate).catch(() => false)) continue;
        }
        const next = await switchModel(active, options, 'context-overflow', verdict.detail, position);
        if (next === undefined) return finish('context_overflow', verdict.detail);
        await releaseLeft(current, next.options);
        active = next;
        overflowRetried = false;
        continue;
      }
    }
  }
}

/** Why the agent stops before its next step, if it does: a limit reached, or the run cancelled. */
function stopCondition(session: Session, totals: AgentTotals, signal: AbortSignal, limits: AgentLimits): StopVerdict | undefined {
  const spent = totals.usage.input + totals.usage.output;
  return checkStopConditions({ stepsTaken: session.answeredCalls, tokensSpent: spent, messages: session.deriveMessages(), ...(signal.aborted ? { aborted: abortedBecause(signal) } : {}) }, limits);
}

/** The instruction and handoffs, once per surface; an `@image` reference that cannot be attached is why not. */
async function appendInstruction(options: RunAgentOptions, turn: number): Promise<string | undefined> {
  const { session } = options;
  if (session.instruction() !== undefined) return undefined;
  // The instruction's `@image` references are attached once, by reference, with the instruction.
  let images: readonly ImageAttachment[] = [];
  try {
    if (options.images !== undefined) images = await attachImages(options.instruction, options.images);
  } catch (error) {
    if (error instanceof ImageReferenceError) return error.message;
    throw error;
  }
  const attached = images.map(({ path, sha256, mediaType, bytes }) => ({ path, sha256, mediaType, bytes }));
  session.countAhead([options.instruction, ...(options.handoffs ?? [])]);
  // The instruction and its handoffs in one transaction: a surface never holds one without the others.
  await session.log.appendMany([
    { type: 'user/message', nodeId: session.nodeId, turn, step: 0, payload: { content: options.instruction, source: 'instruction', ...(attached.length === 0 ? {} : { images: attached }) } },
    ...(options.handoffs ?? []).map((handoff) => ({ type: 'user/message' as const, nodeId: session.nodeId, turn, step: 0, payload: { content: handoff, source: 'handoff' as const } })),
  ]);
  return undefined;
}

/**
 * Open tool calls of a surface whose process stopped between a call and its result, or whose calls
 * the run's stop ended (`Session.openToolCalls`): by default all are closed as interrupted; a
 * resumed node runs the ones it names again at their step, and the step then ends as any step does
 * (`onStepEnd`). A call's new result takes the place of the one the run's stop gave it.
 */
async function settleOpenToolCalls(options: RunAgentOptions): Promise<void> {
  const { session, resume } = options;
  // From here on messages are counted as they reach the surface, off this thread: the steps' derivations find them counted.
  session.countArrivingMessages();
  if (resume === undefined) {
    await session.closeInterruptedToolCalls();
    return;
  }
  const open = session.openToolCalls();
  if (open.length === 0) return;
  const asked = [...session.surface()].reverse().find((event) => event.type === 'assistant/message');
  const position: StepPosition = { turn: asked?.turn ?? options.turn ?? 1, step: asked?.step ?? session.lastStep };
  const again = open.filter((call) => resume.rerunCalls.has(call.id));
  if (again.length > 0) {
    await executeToolCalls({
      calls: again,
      tools: options.tools,
      session,
      context: options.toolContext,
      position,
      signal: options.signal,
      batchTimeoutMs: options.toolBatchTimeoutMs ?? DEFAULT_TOOL_BATCH_TIMEOUT_MS,
      replacing: new Map(again.flatMap((call) => (call.replaces === undefined ? [] : [[call.id, call.replaces] as const]))),
    });
  }
  await session.closeInterruptedToolCalls(resume.interruptedContent);
  await options.onStepEnd?.(position);
}

/**
 * The end of the last step (`onStepEnd`: a node's checkpoint of its files), running while the next
 * step prepares and asks the model, which touch no file: the answer is recorded, and its calls run,
 * once it has `settled` (a failed end fails the agent there, as it would have before the call).
 */
class PendingStepEnd {
  #pending: Promise<void> | undefined;

  /** Begins the end of the step at `position`; with PreCompact hooks (they may run commands in the workspace while the next step prepares), waits for it. */
  async begin(options: RunAgentOptions, position: StepPosition): Promise<void> {
    const ending = options.onStepEnd?.(position);
    if (ending === undefined) return;
    if (options.beforeCompact !== undefined) return ending;
    ending.catch(() => undefined); // awaited in `settled`; handled here so a failure cannot go unhandled meanwhile
    this.#pending = ending;
  }

  async settled(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    await pending;
  }
}

/** The text of the surface's last message when it is the model's answer without tool calls. */
function lastAnswer(session: Session): string | undefined {
  const last = session.surface().at(-1);
  return last?.type === 'assistant/message' && last.payload.toolCalls.length === 0 ? last.payload.content : undefined;
}

/** A background summary prepared for the model left behind was sized for its window: let it go. */
async function releaseLeft(left: RunAgentOptions, next: RunAgentOptions): Promise<void> {
  if (left.compactor !== next.compactor) await left.compactor?.release?.(left.session).catch(() => undefined);
}
