import type { SystemPrompt } from '../context/system-prompt.js';
import type { StepPosition } from '../context/runtime-context.js';
import type { CallModelOptions } from '../model/call-model.js';
import type { AgentId, ModelParameters, ModelProvider, StreamPart, Usage } from '../model/model-provider.js';
import type { Session } from '../session/session.js';
import type { AgentCompactor } from './agent-compactor.js';
import { agentStep } from './agent-step.js';
import { spentSoFar } from './agent-totals.js';
import type { EndReason } from './end-reason.js';
import type { ToolContextBase } from './execute-tool-calls.js';
import { DEFAULT_AGENT_LIMITS, checkStopConditions, type AgentLimits } from './stop-conditions.js';
import type { TextStreamOptions } from './text-stream-coalescer.js';
import type { ToolRuntime } from './tool-runtime.js';

export interface RunAgentOptions {
  readonly agent: AgentId;
  readonly session: Session;
  /** System sections, dynamic contexts and the tool list: assembled anew every step. */
  readonly prompt: SystemPrompt;
  readonly provider: ModelProvider;
  readonly model: string;
  readonly parameters?: ModelParameters;
  readonly tools: ToolRuntime;
  readonly toolContext: ToolContextBase;
  /** Pinned first message of the surface; written once, a resumed agent finds it in the log. */
  readonly instruction: string;
  /** What finished dependencies handed over, each written once after the instruction. */
  readonly handoffs?: readonly string[];
  readonly limits?: Partial<AgentLimits>;
  readonly toolBatchTimeoutMs?: number;
  readonly compactor?: AgentCompactor;
  /** USD for one call's usage; zero when omitted. */
  readonly price?: (usage: Usage) => number;
  readonly signal: AbortSignal;
  /** Every stream part as it arrives, for live display. */
  readonly onPart?: (part: StreamPart) => void;
  /**
   * How the response text is written to the log while it streams (`text/streamed`, for a
   * dashboard in another process); `false` writes none. Coalesced to a few events a second by default.
   */
  readonly streamText?: TextStreamOptions | false;
  readonly callOptions?: Pick<CallModelOptions, 'retryPolicy' | 'sleep' | 'random'>;
  /** The conversation turn the agent's events carry (1 for a node). */
  readonly turn?: number;
}

export interface AgentOutcome {
  readonly reason: EndReason;
  /** The final answer (the last response without tool calls), or the last text when stopped early. */
  readonly answer: string;
  readonly detail?: string;
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
  const { session, signal } = options;
  const limits = { ...DEFAULT_AGENT_LIMITS, ...options.limits };
  const turn = options.turn ?? 1;
  const totals = await spentSoFar(session);
  let lastText = '';

  await session.closeInterruptedToolCalls();
  if (session.instruction() === undefined) {
    await session.append({ type: 'user/message', turn, step: 0, payload: { content: options.instruction, source: 'instruction' } });
    for (const handoff of options.handoffs ?? []) await session.append({ type: 'user/message', turn, step: 0, payload: { content: handoff, source: 'handoff' } });
  }

  const finish = async (reason: EndReason, detail?: string): Promise<AgentOutcome> => {
    await options.compactor?.release?.(session).catch(() => undefined);
    const steps = session.lastStep;
    await session.append({ type: 'agent/finished', turn, step: steps, payload: { reason, steps, ...(detail === undefined ? {} : { detail }) } });
    return { reason, answer: lastText, steps, usage: totals.usage, costUsd: totals.costUsd, ...(detail === undefined ? {} : { detail }) };
  };

  let overflowRetried = false;
  for (;;) {
    const stop = checkStopConditions(
      { stepsTaken: session.lastStep, tokensSpent: totals.usage.input + totals.usage.output, messages: session.deriveMessages(), aborted: signal.aborted },
      limits,
    );
    if (stop !== undefined) return finish(stop.reason, stop.detail);

    const position: StepPosition = { turn, step: session.lastStep + 1 };
    const verdict = await agentStep(options, position, totals);
    if (verdict.kind !== 'overflow' && verdict.text !== undefined && verdict.text.trim() !== '') lastText = verdict.text;
    switch (verdict.kind) {
      case 'continue':
        overflowRetried = false;
        continue;
      case 'done':
        return finish('done');
      case 'stop':
        return finish(verdict.reason, verdict.detail);
      case 'overflow':
        // Compact once and try the step again; a second overflow in a row ends the agent.
        if (!overflowRetried && options.compactor !== undefined) {
          overflowRetried = true;
          if (await options.compactor.onContextOverflow(session, await options.prompt.assemble(), signal).catch(() => false)) continue;
        }
        return finish('context_overflow', verdict.detail);
    }
  }
}
