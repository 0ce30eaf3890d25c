import { loadedImageData } from './image-data.js';
import type { ModelMessage } from './model-message.js';
import type { ModelRequest } from './model-provider.js';

export interface OpenAIRequestOptions {
  /** Send `reasoning_content` back on assistant turns that made tool calls (DeepSeek, Kimi thinking models). */
  readonly reasoningRoundTrip: boolean;
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/**
 * The chat-completions body for a request, in cache-friendly order: system, tools, history.
 * Streaming with `include_usage`, so the last chunk carries the token counts.
 */
export function openAIRequestBody(request: ModelRequest, options: OpenAIRequestOptions): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system.length > 0) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(openAIMessage(message, options));
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.parameters.temperature !== undefined) body['temperature'] = request.parameters.temperature;
  if (request.parameters.maxOutputTokens !== undefined) body[options.maxTokensField] = request.parameters.maxOutputTokens;
  return body;
}

function openAIMessage(message: ModelMessage, options: OpenAIRequestOptions): Record<string, unknown> {
  switch (message.role) {
    case 'user':
      if (message.images === undefined || message.images.length === 0) return { role: 'user', content: message.content };
      // Images as content parts beside the text (`image_url` with a data URL), never as text.
      return {
        role: 'user',
        content: [
          ...(message.content.length > 0 ? [{ type: 'text', text: message.content }] : []),
          ...message.images.map((image) => ({ type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${loadedImageData(image)}` } })),
        ],
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      if (message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
      const assistant: Record<string, unknown> = {
        role: 'assistant',
        content: message.content.length > 0 ? message.content : null,
        // Invalid argument text goes back as the model wrote it, so it can see its own mistake.
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.argsText ?? JSON.stringify(call.args ?? {}) },
        })),
      };
      if (options.reasoningRoundTrip) assistant['reasoning_content'] = message.reasoning ?? '';
      return assistant;
    }
  }
}
