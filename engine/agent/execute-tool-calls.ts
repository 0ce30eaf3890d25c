import PQueue from 'p-queue';
import type { StepPosition } from '../context/runtime-context.js';
import { errorMessage } from '../errors.js';
import { replacingOnSurface, type Session } from '../session/session.js';
import type { ToolCall } from '../model/model-message.js';
import type { SessionEvent } from '../session/event-types.js';
import type { ToolExecutionContext, ToolResult, ToolRuntime } from './tool-runtime.js';

export const DEFAULT_TOOL_BATCH_TIMEOUT_MS = 90_000;
/** Tool calls of one model response that run; the rest get a refusal the model can act on. */
export const MAX_TOOL_CALLS_PER_RESPONSE = 32;
/** Calls of one response that run at the same time; the others wait their turn. */
export const MAX_PARALLEL_TOOL_CALLS = 8;

export type ToolContextBase = Omit<ToolExecutionContext, 'signal' | 'position' | 'session'>;

export interface ExecuteToolCallsInput {
  readonly calls: readonly ToolCall[];
  readonly tools: ToolRuntime;
  readonly session: Session;
  readonly context: ToolContextBase;
  readonly position: StepPosition;
  readonly signal: AbortSignal;
  readonly batchTimeoutMs: number;
  /** Default `MAX_TOOL_CALLS_PER_RESPONSE`. */
  readonly maxCalls?: number;
  /** Default `MAX_PARALLEL_TOOL_CALLS`. */
  readonly maxParallel?: number;
  /** Calls whose result takes the place of another on the surface, by id: the surface position of the result the run's stop gave them. */
  readonly replacing?: ReadonlyMap<string, number>;
}

/**
 * Runs the tool calls of one model response in parallel, with one time budget for the whole
 * batch. Each result is appended as `tool/result` the moment it is in, so a crash keeps what
 * finished; a call still running when the budget ends gets a timeout result. A tool's failure
 * never throws: it becomes the result the model reads. At most `maxCalls` calls of a response
 * run, `maxParallel` at a time; each call past the cap gets a `refused` result saying so, so a
 * model that emits thousands of calls costs thousands of short results, not thousands of tools.
 */
export async function executeToolCalls(input: ExecuteToolCallsInput): Promise<SessionEvent<'tool/result'>[]> {
  const batch = new AbortController();
  const signal = AbortSignal.any([input.signal, batch.signal]);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      batch.abort(new Error(`tool batch exceeded ${input.batchTimeoutMs} ms`));
      resolve('timeout');
    }, input.batchTimeoutMs);
    timer.unref?.();
  });
  const maxCalls = input.maxCalls ?? MAX_TOOL_CALLS_PER_RESPONSE;
  const slots = new PQueue({ concurrency: input.maxParallel ?? MAX_PARALLEL_TOOL_CALLS });
  try {
    return await Promise.all(
      input.calls.map(async (call, index) => {
        const started = Date.now();
        const running = (
          index >= maxCalls
            ? Promise.resolve(failure(call, capMessage(input.calls.length, maxCalls), 'refused', started))
            : (slots.add(() => execute(input, call, signal)) as Promise<ToolResult>)
        )
          .catch((error: unknown): ToolResult => failure(call, `tool ${call.name} failed: ${errorMessage(error)}`, 'error', started));
        const outcome = await Promise.race([running, timedOut]);
        const result =
          outcome === 'timeout'
            ? failure(call, `tool ${call.name} did not finish within the ${Math.round(input.batchTimeoutMs / 1000)} s budget of this step and was stopped`, 'timeout', started)
            : outcome;
        input.session.countAhead([result.content]);
        return input.session.append({
          type: 'tool/result',
          ...replacingOnSurface(input.replacing?.get(call.id)),
          turn: input.position.turn,
          step: input.position.step,
          payload: { toolCallId: call.id, name: call.name, content: result.content, isError: result.isError, meta: { ...result.meta, args: result.meta.args ?? call.args } },
        });
      }),
    );
  } finally {
    clearTimeout(timer);
  }
}

function execute(input: ExecuteToolCallsInput, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
  return input.tools.execute(
    { id: call.id, name: call.name, args: call.args, ...(call.argsText === undefined ? {} : { argsText: call.argsText }) },
    { ...input.context, signal, position: input.position, session: input.session },
  );
}

function capMessage(count: number, maxCalls: number): string {
  return `refused: this response made ${count} tool calls and at most ${maxCalls} run per response; this one did not run. Make the calls still needed in your next response, ${maxCalls} or fewer at a time`;
}

function failure(call: ToolCall, content: string, outcome: 'error' | 'timeout' | 'refused', started: number): ToolResult {
  return { content, isError: true, meta: { outcome, truncated: false, originalLength: content.length, durationMs: Date.now() - started, args: call.args } };
}
