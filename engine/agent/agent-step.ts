import { buildRequest } from '../context/build-request.js';
import { ImageReferenceError, loadImageData } from '../context/image-references.js';
import { requestInputTokens, sendRequestRecord } from '../context/record-request.js';
import { projectRuntimeContext, type StepPosition } from '../context/runtime-context.js';
import { errorMessage } from '../errors.js';
import { linkedAbort } from '../model/abort-reason.js';
import { callModel, type ModelResponse } from '../model/call-model.js';
import { ContextOverflowError, ImagesNotAcceptedError } from '../model/model-errors.js';
import type { ModelMessage } from '../model/model-message.js';
import type { ModelRequest } from '../model/model-provider.js';
import type { EventDraft } from '../session/event-types.js';
import type { Session } from '../session/session.js';
import type { AgentTotals } from './agent-totals.js';
import type { EndReason } from './end-reason.js';
import { fallbackVerdict, type FallbackReason } from './fallback-verdict.js';
import { DEFAULT_TOOL_BATCH_TIMEOUT_MS, executeToolCalls } from './execute-tool-calls.js';
import { EXPECTED_OUTPUT_TOKENS, type GateVerdict, type ModelCallEstimate } from './model-call-gate.js';
import type { RunAgentOptions } from './run-agent-options.js';
import { abortedBecause } from './stop-conditions.js';
import { TextStreamCoalescer } from './text-stream-coalescer.js';

/**
 * What one step concluded; the loop in `runAgent` acts on it.
 * - `continue`: the model called tools and their results are in the log; take the next step.
 * - `done`: the model answered without tool calls; its text is the agent's answer, stored with
 *   the agent's `agent/finished` (one append: the node's end waits for one write, not two).
 * - `overflow`: the provider said the context is too long (compact once and retry, or stop).
 * - `stop`: the step cannot go on (cancelled, a model error, a fatal tool failure); `fallback`
 *   when the model's failure is one the agent's next model may not share.
 * `text` is the response's text when the model answered at all.
 */
export type StepVerdict =
  | { readonly kind: 'continue'; readonly text: string }
  | { readonly kind: 'done'; readonly text: string }
  | { readonly kind: 'overflow'; readonly detail: string }
  | { readonly kind: 'stop'; readonly reason: EndReason; readonly detail: string; readonly text?: string; readonly fallback?: FallbackReason; readonly permanent?: boolean };

/**
 * One step of the chain (SPEC §1): assemble the prompt, project changed runtime context, let
 * compaction check pressure, deliver words sent to the node, derive messages from the log, build
 * and record the request, call the model, append its answer, run its tool calls and append their
 * results. `beforeAnswer` is waited for before the answer is recorded (the last step's end, which
 * ran beside the call). Returns a verdict; throws only when the log itself cannot be written (or
 * `beforeAnswer` fails).
 */
export async function agentStep(options: RunAgentOptions, position: StepPosition, totals: AgentTotals, beforeAnswer?: () => Promise<void>): Promise<StepVerdict> {
  const { session, signal } = options;
  let response: ModelResponse;
  // Streamed text and retry notices go to the log in order, before the answer that follows them.
  let writes = Promise.resolve();
  const write = (draft: EventDraft): void => {
    writes = writes.then(async () => void (await session.append(draft)));
    writes.catch(() => undefined); // awaited below; handled here so a failed write cannot go unhandled meanwhile
  };
  const coalescer = options.streamText === false ? undefined : new TextStreamCoalescer(options.streamText);
  let admitted: GateVerdict | undefined;
  try {
    const { snapshot, injected, request } = await prepareRequest(options, position);
    // The budget is asked before anything of the call is recorded: a refused call was never made.
    admitted = await options.gate?.admit(estimateCall(options, request, requestInputTokens(session, request)));
    if (admitted?.admitted === false) return { kind: 'stop', reason: 'aborted', detail: admitted.reason };
    const sent = await withImageData(options, request);
    const record = await sendRequestRecord(session, {
      provider: options.provider.id,
      request,
      snapshot,
      contextChanged: injected !== undefined,
      position,
      ...(options.compactor?.threshold === undefined ? {} : { compactionThreshold: options.compactor.threshold }),
    });
    response = await whileStored(record.stored, signal, (callSignal) => callModel(options.provider, sent, {
      signal: callSignal,
      ...options.callOptions,
      onPart: (part) => {
        options.onPart?.(part);
        const text = part.type === 'text' ? coalescer?.push(part.text) : undefined;
        if (text !== undefined) write({ type: 'text/streamed', ...position, payload: { text } });
      },
      onRetry: (notice) => {
        coalescer?.restart();
        const payload = { attempt: notice.attempt, delayMs: notice.delayMs, error: errorMessage(notice.error), ...statusOf(notice.error) };
        write({ type: 'model/retried', ...position, payload });
      },
    }));
    await writes;
  } catch (error) {
    if (admitted?.admitted === true) admitted.settle();
    await writes.catch(() => undefined);
    // A step that ends without an answer (stopped, overflowed) comes after the last one's end too.
    await beforeAnswer?.();
    if (error instanceof ImageReferenceError || error instanceof ImagesNotAcceptedError) return { kind: 'stop', reason: 'error', detail: error.message, permanent: true };
    if (signal.aborted) return { kind: 'stop', reason: 'aborted', detail: abortedBecause(signal) };
    if (error instanceof ContextOverflowError) return { kind: 'overflow', detail: error.message };
    const fallback = fallbackVerdict(error);
    return { kind: 'stop', reason: 'error', detail: errorMessage(error), ...(fallback === undefined ? {} : { fallback }) };
  }

  // The last step's end (its checkpoint) ran beside the call: the answer and its calls come after it.
  await beforeAnswer?.();
  const costUsd = options.price?.(response.usage) ?? 0;
  totals.add(response.usage, costUsd);
  const final = response.toolCalls.length === 0;
  // The agent ends with its final answer: a background compaction candidate it leaves is closed first.
  if (final) await options.compactor?.release?.(session).catch(() => undefined);
  try {
    await appendAnswer(options, session, position, response, costUsd, final);
  } finally {
    if (admitted?.admitted === true) admitted.settle();
  }
  const text = response.content;
  if (final) return { kind: 'done', text };

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
  if (fatal !== undefined) return { kind: 'stop', reason: 'error', detail: `tool ${fatal.payload.name} failed fatally: ${fatal.payload.content}`, text };
  return { kind: 'continue', text };
}

/** The step's prompt, runtime context (after compaction had its say) and the request built from the log. */
async function prepareRequest(options: RunAgentOptions, position: StepPosition) {
  const { session, signal } = options;
  const snapshot = await options.prompt.assemble();
  let injected = await projectRuntimeContext(session, snapshot.context, position);
  if (options.compactor !== undefined) {
    await session.countsReady();
    await options.compactor.preStep(session, snapshot, signal, options.beforeCompact, options.gate);
    // A compaction may have folded the last runtime-context message away: put the state back.
    injected = (await projectRuntimeContext(session, snapshot.context, position)) ?? injected;
  }
  // Words a person sent the node since its last step: part of this step's messages, once.
  await options.steering?.deliverWords(position);
  await session.countsReady();
  const request = buildRequest({
    agent: options.agent,
    model: options.model,
    snapshot,
    messages: session.deriveMessages(),
    sessionId: session.log.runId,
    ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
  });
  return { snapshot, injected, request };
}

/**
 * The request goes out while its record is stored: `call` runs at once, and its answer is given
 * only once `stored` is (the answer is appended after the record). A record that fails stops the
 * call and is what this throws, as when the record was stored before the call.
 */
async function whileStored<T>(stored: Promise<void>, signal: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const unrecorded = linkedAbort(signal);
  let failure: { readonly error: unknown } | undefined;
  const recorded = stored.catch((error: unknown) => {
    failure = { error };
    unrecorded.controller.abort(error);
  });
  let answer: T;
  try {
    answer = await call(unrecorded.controller.signal);
  } catch (error) {
    await recorded;
    throw failure === undefined ? error : failure.error;
  } finally {
    unrecorded.unlink();
  }
  await recorded;
  if (failure !== undefined) throw failure.error;
  return answer;
}

/** The model's answer; a final one (`final`) together with the agent's `agent/finished`, in one append. */
async function appendAnswer(options: RunAgentOptions, session: Session, position: StepPosition, response: ModelResponse, costUsd: number, final: boolean): Promise<void> {
  const answer: EventDraft<'assistant/message'> = {
    type: 'assistant/message',
    nodeId: session.nodeId,
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
  };
  if (!final) {
    await session.log.append(answer);
    return;
  }
  await session.log.appendMany([answer, finishedDraft(session, position.turn, position.step, 'done')]);
}

/** The agent's last event: why it ended, after how many steps (its surface's last step). */
export function finishedDraft(session: Session, turn: number, steps: number, reason: EndReason, detail?: string): EventDraft<'agent/finished'> {
  return { type: 'agent/finished', nodeId: session.nodeId, turn, step: steps, payload: { reason, steps, ...(detail === undefined ? {} : { detail }) } };
}

/** The call as the gate weighs it: the request's input at the cache-miss price, and its maximum output or the expected one. */
function estimateCall(options: RunAgentOptions, request: ModelRequest, inputTokens: number): ModelCallEstimate {
  const outputTokens = request.parameters?.maxOutputTokens ?? EXPECTED_OUTPUT_TOKENS;
  const costUsd = options.price?.({ input: inputTokens, output: outputTokens, cacheHit: 0, reasoning: 0 }) ?? 0;
  return { nodeId: options.session.nodeId, inputTokens, outputTokens, costUsd };
}

function statusOf(error: unknown): { status?: number } {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? { status } : {};
}

function hasImages(messages: readonly ModelMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && message.images !== undefined && message.images.length > 0);
}

/**
 * The request with its images' bytes loaded, when the history carries any. Throws
 * `ImagesNotAcceptedError` when the agent's model takes no images, `ImageReferenceError` when an
 * image cannot be loaded as the log recorded it.
 */
async function withImageData(options: RunAgentOptions, request: ModelRequest): Promise<ModelRequest> {
  if (!hasImages(request.messages)) return request;
  const paths = request.messages.flatMap((message) => (message.role === 'user' ? (message.images ?? []).map((image) => `@${image.path}`) : []));
  if (options.provider.acceptsImages?.(options.model) !== true) throw new ImagesNotAcceptedError(options.provider.id, options.model, paths);
  if (options.images === undefined) throw new ImageReferenceError(paths[0]!.slice(1), 'this agent has no workspace to read images from');
  return { ...request, messages: await loadImageData(request.messages, options.images) };
}
