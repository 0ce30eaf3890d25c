import { loadedImageData } from './image-data.js';
import type { AssistantModelMessage, ModelMessage } from './model-message.js';
import type { ModelRequest } from './model-provider.js';

/** Anthropic requires `max_tokens`; this is the default when the request sets none. */
export const DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS = 8_192;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: Block[];
}

const CACHE_BREAKPOINT = { type: 'ephemeral' } as const;

/**
 * The Messages API body. Anthropic reads tools, then system, then messages, and caches at most
 * four breakpoints: the last tool (nodes list the tools every kind has first, so a read node's
 * whole list is an edit node's start: the edit node finds that entry looking back from its system
 * breakpoint), the system block (the static prefix), the block the previous request ended with
 * (just before the model's last answer: Anthropic looks for an earlier entry only 20 blocks back
 * from a breakpoint, and a step with many tool results appends more than that), and the last
 * history block, which the next step reads back.
 * Tool results go back as `tool_result` blocks of a user message; consecutive tool and user
 * messages are merged into one user turn, results first as the API requires.
 */
export function anthropicRequestBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.parameters.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS,
    stream: true,
  };
  const tools: Block[] = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  if (tools.length > 0) tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: CACHE_BREAKPOINT };
  if (request.system.length > 0) body['system'] = [{ type: 'text', text: request.system, cache_control: CACHE_BREAKPOINT }];
  if (tools.length > 0) body['tools'] = tools;
  const messages = anthropicMessages(request.messages);
  markPreviousRequestEnd(messages);
  markLastBlock(messages);
  body['messages'] = messages;
  if (request.parameters.temperature !== undefined) body['temperature'] = request.parameters.temperature;
  return body;
}

export function anthropicMessages(messages: readonly ModelMessage[]): AnthropicMessage[] {
  const result: AnthropicMessage[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.role === 'assistant' ? assistantBlocks(message) : userBlocks(message);
    if (blocks.length === 0) continue;
    const previous = result.at(-1);
    if (previous !== undefined && previous.role === role) previous.content.push(...blocks);
    else result.push({ role, content: blocks });
  }
  for (const message of result) {
    if (message.role === 'user') message.content.sort((a, b) => Number(b['type'] === 'tool_result') - Number(a['type'] === 'tool_result'));
  }
  return result;
}

function userBlocks(message: Exclude<ModelMessage, AssistantModelMessage>): Block[] {
  // The API refuses empty text blocks.
  if (message.role === 'user') {
    // Images first, then the text about them, as Anthropic advises; each a base64 `image` block.
    const images: Block[] = (message.images ?? []).map((image) => ({
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType, data: loadedImageData(image) },
    }));
    return message.content.length > 0 ? [...images, { type: 'text', text: message.content }] : images;
  }
  return [{
    type: 'tool_result',
    tool_use_id: message.toolCallId,
    content: message.content,
    ...(message.isError ? { is_error: true } : {}),
  }];
}

function assistantBlocks(message: AssistantModelMessage): Block[] {
  const blocks: Block[] = [];
  // A thinking block can only be replayed with the signature Anthropic gave it.
  if (message.reasoning !== undefined && message.reasoningSignature !== undefined) {
    blocks.push({ type: 'thinking', thinking: message.reasoning, signature: message.reasoningSignature });
  }
  if (message.content.length > 0) blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls) {
    const input = typeof call.args === 'object' && call.args !== null && !Array.isArray(call.args) ? call.args : {};
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
  }
  return blocks;
}

function markLastBlock(messages: AnthropicMessage[]): void {
  const last = messages.at(-1);
  if (last !== undefined) markEnd(last);
}

/** The last user turn before the last assistant turn: where the previous request ended. */
function markPreviousRequestEnd(messages: AnthropicMessage[]): void {
  const answer = messages.findLastIndex((message) => message.role === 'assistant');
  const previous = answer > 0 ? messages[answer - 1] : undefined;
  if (previous !== undefined && answer < messages.length - 1) markEnd(previous);
}

function markEnd(message: AnthropicMessage): void {
  const index = message.content.length - 1;
  const block = message.content[index];
  if (block === undefined || block['type'] === 'thinking') return;
  message.content[index] = { ...block, cache_control: CACHE_BREAKPOINT };
}
