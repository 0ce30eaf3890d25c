import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from '../model/model-message.js';
import { FINISH_REASONS } from '../model/model-provider.js';
import { defineEvent } from './define-event.js';
import { END_REASONS, FALLBACK_REASONS, TOOL_OUTCOMES } from './event-values.js';
import { withUniformToolMeta } from './tool-result-meta.js';

/** Token counts of one model call, as assistant messages and compaction summaries record them. */
export const usage = z.strictObject({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheHit: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative().optional(),
  reasoning: z.number().int().nonnegative(),
  /** The counts are estimates, not numbers the provider reported. */
  estimated: z.boolean().optional(),
});

const toolCall = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown(),
  argsText: z.string().optional(),
});

const userSource = z.enum(['user', 'instruction', 'handoff', 'runtime-context', 'memory', 'compaction-summary', 'note']);

const imageReference = z.strictObject({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  bytes: z.number().int().nonnegative(),
});

function userMessagePayload() {
  return z.strictObject({
    content: z.string(),
    source: userSource,
    /** For runtime-context messages: the full state snapshot the message reflects. */
    context: z.record(z.string(), z.unknown()).optional(),
    compactionId: z.string().optional(),
  });
}

/** The events of a node agent's conversation: messages, tool calls and results, requests, retries, its end. */
export const AGENT_EVENTS = {
  /**
   * Version 2: `images`, the images attached to the message (`@shot.png` in a task or an
   * instruction), each by reference (workspace path, sha256 of the bytes, media type, size), never
   * the bytes: the log stays small however often an image is shown, and the hash pins what is sent.
   */
  'user/message': defineEvent(2, () => userMessagePayload().extend({ images: z.array(imageReference).min(1).optional() }), {
    1: { payload: userMessagePayload, upgrade: (payload) => payload },
  }),
  'assistant/message': defineEvent(1, () => z.strictObject({
    content: z.string(),
    reasoning: z.string().optional(),
    reasoningSignature: z.string().optional(),
    toolCalls: z.array(toolCall),
    finishReason: z.enum(FINISH_REASONS),
    provider: z.string(),
    model: z.string(),
    usage: usage.optional(),
    costUsd: z.number().nonnegative().optional(),
  })),
  'tool/call': defineEvent(1, () => z.strictObject({ toolCallId: z.string(), name: z.string(), args: z.unknown() })),
  /**
   * Text of a model response while it streams, coalesced (a few events a second, cut at whitespace),
   * for a dashboard in another process. Display only: the `assistant/message` that follows is the
   * authority, and no model request is ever built from these.
   */
  'text/streamed': defineEvent(1, () => z.strictObject({ text: z.string().min(1) })),
  /**
   * Version 2: every result carries the uniform fields (truncated, originalLength, source,
   * contentType, provider), filled at the write from what the tool said or the defaults, so a
   * reader never asks which tool wrote it. Version 1 rows are brought to the same shape.
   */
  'tool/result': defineEvent(2, () => toolResultPayload().transform(uniformToolResult), {
    1: { payload: toolResultPayload, upgrade: (payload) => uniformToolResult(payload as z.output<ReturnType<typeof toolResultPayload>>) },
  }),
  'prompt/recorded': defineEvent(1, () => z.strictObject({
    systemHash: z.string(),
    system: z.string(),
    toolsHash: z.string(),
    tools: z.array(z.strictObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  })),
  'request/header': defineEvent(1, () => z.strictObject({
    agent: z.string(),
    provider: z.string(),
    model: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    systemHash: z.string(),
    toolsHash: z.string(),
    toolNames: z.array(z.string()),
    contextChanged: z.boolean(),
  })),
  'request/context': defineEvent(1, () => z.strictObject({
    messageSeqs: z.array(z.number().int()),
    estimatedTokens: z.number().int().nonnegative(),
    surfaceGeneration: z.number().int().nonnegative(),
    /** The node's compaction threshold when it has a compactor: its context gauge's full mark. */
    compactionThresholdTokens: z.number().int().nonnegative().optional(),
  })),
  'model/retried': defineEvent(1, () => z.strictObject({ attempt: z.number().int(), delayMs: z.number(), error: z.string(), status: z.number().optional() })),
  /** The agent's model failed in a way the next model of its list may not (`fallbackVerdict`): it goes on from the same messages with `to`. */
  'model/switched': defineEvent(1, () => z.strictObject({ from: z.string(), to: z.string(), reason: z.enum(FALLBACK_REASONS), error: z.string() })),
  'agent/finished': defineEvent(1, () => z.strictObject({ reason: z.enum(END_REASONS), detail: z.string().optional(), steps: z.number().int() })),
} as const;

function toolResultPayload() {
  return z.strictObject({
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
    meta: z.looseObject({
      outcome: z.enum(TOOL_OUTCOMES),
      truncated: z.boolean().optional(),
      originalLength: z.number().int().nonnegative().optional(),
      durationMs: z.number().nonnegative().optional(),
      args: z.unknown().optional(),
      path: z.string().optional(),
      url: z.string().optional(),
      source: z.string().optional(),
      contentType: z.string().optional(),
      provider: z.string().optional(),
      fatal: z.boolean().optional(),
    }),
  });
}

function uniformToolResult<P extends z.output<ReturnType<typeof toolResultPayload>>>(payload: P) {
  return { ...payload, meta: withUniformToolMeta(payload.name, payload.content, payload.meta) };
}
