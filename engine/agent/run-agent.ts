import { buildRequest } from '../context/build-request.js';
import { recordRequest } from '../context/record-request.js';
import { projectRuntimeContext, type StepPosition } from '../context/runtime-context.js';
import type { PromptSnapshot, SystemPrompt } from '../context/system-prompt.js';
import { errorMessage } from '../errors.js';
import { callModel, type CallModelOptions, type ModelResponse } from '../model/call-model.js';
import { ContextOverflowError } from '../model/model-errors.js';
import type { AgentId, ModelParameters, ModelProvider, StreamPart, Usage } from '../model/model-provider.js';
import type { Session } from '../session/session.js';
import type { AgentCompactor } from './agent-compactor.js';
import type { EndReason } from './end-reason.js';
import { DEFAULT_TOOL_BATCH_TIMEOUT_MS, executeToolCalls, type ToolContextBase } from './execute-tool-calls.js';
import { DEFAULT_AGENT_LIMITS, checkStopConditions, type AgentLimits } from './stop-conditions.js';
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
 * One ReAct agent (SPEC §3): every step runs the same chain — assemble the prompt, project
 * changed runtime context, let compaction check pressure, derive messages from the log, build and
 * record the request, call the model, append its answer, run its tool calls and append their
 * results. Always ends with a reason from a closed set; nothing escapes as an exception except
 * a failure to write the log itself.
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
    let response: ModelResponse;
    let snapshot: PromptSnapshot;
    let retryWrites = Promise.resolve();
    try {
      snapshot = await options.prompt.assemble();
      let injected = await projectRuntimeContext(session, snapshot.context, position);
      if (options.compactor !== undefined) {
        await options.compactor.preStep(session, snapshot, signal);
        // A compaction may have folded the last runtime-context message away: put the state back.
        injected = (await projectRuntimeContext(session, snapshot.context, position)) ?? injected;
      }
      const request = buildRequest({
        agent: options.agent,
        model: options.model,
        snapshot,
        messages: session.deriveMessages(),
        sessionId: session.log.runId,
        ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
      });
      await recordRequest(session, { provider: options.provider.id, request, snapshot, contextChanged: injected !== undefined, position });
      response = await callModel(options.provider, request, {
        signal,
        ...options.callOptions,
        ...(options.onPart === undefined ? {} : { onPart: options.onPart }),
        onRetry: (notice) => {
          const payload = { attempt: notice.attempt, delayMs: notice.delayMs, error: errorMessage(notice.error), ...statusOf(notice.error) };
          retryWrites = retryWrites.then(async () => void (await session.append({ type: 'model/retried', ...position, payload })));
        },
      });
      await retryWrites;
    } catch (error) {
      await retryWrites.catch(() => undefined);
      if (signal.aborted) return finish('aborted', 'the run was cancelled');
      if (error instanceof ContextOverflowError) {
        if (!overflowRetried && options.compactor !== undefined) {
          overflowRetried = true;
          const compacted = await options.compactor.onContextOverflow(session, await options.prompt.assemble(), signal).catch(() => false);
          if (compacted) continue;
        }
        return finish('context_overflow', error.message);
      }
      return finish('error', errorMessage(error));
    }
    overflowRetried = false;

    const costUsd = options.price?.(response.usage) ?? 0;
    totals.add(response.usage, costUsd);
    await session.append({
      type: 'assistant/message',
      ...position,
      payload: {
        content: response.content,
        toolCalls: response.toolCalls.map((call) => ({ ...call })),
        finishReason: response.finishReason,
        provider: options.provider.id,
        model: options.model,
        usage: { ...response.usage },
        costUsd,
        ...(response.reasoning === undefined ? {} : { reasoning: response.reasoning }),
        ...(response.reasoningSignature === undefined ? {} : { reasoningSignature: response.reasoningSignature }),
      },
    });
    if (response.content.trim() !== '') lastText = response.content;
    if (response.toolCalls.length === 0) return finish('done');

    const results = await executeToolCalls({
      calls: response.toolCalls,
      tools: options.tools,
      session,
      context: options.toolContext,
      position,
      signal,
      batchTimeoutMs: options.toolBatchTimeoutMs ?? DEFAULT_TOOL_BATCH_TIMEOUT_MS,
    });
    const fatal = results.find((result) => result.payload.meta.fatal === true);
    if (fatal !== undefined) return finish('error', `tool ${fatal.payload.name} failed fatally: ${fatal.payload.content}`);
  }
}

function statusOf(error: unknown): { status?: number } {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? { status } : {};
}

interface Totals {
  readonly usage: Usage;
  readonly costUsd: number;
  add(usage: Usage, costUsd: number): void;
}

/** Tokens and cost this surface's agent already spent: a resumed agent keeps counting from there. */
async function spentSoFar(session: Session): Promise<Totals> {
  const usage = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };
  let costUsd = 0;
  const add = (next: Usage, cost: number): void => {
    usage.input += next.input;
    usage.output += next.output;
    usage.cacheHit += next.cacheHit;
    usage.reasoning += next.reasoning;
    costUsd += cost;
  };
  for (const event of await session.log.read({ nodeId: session.nodeId, types: ['assistant/message'], fromSeq: session.fromSeq })) {
    if (event.type === 'assistant/message' && event.payload.usage !== undefined) add(event.payload.usage, event.payload.costUsd ?? 0);
  }
  return {
    get usage() {
      return { ...usage };
    },
    get costUsd() {
      return costUsd;
    },
    add,
  };
}
