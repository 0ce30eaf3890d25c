import type { ModelMessage } from './model-message.js';
import type { ModelRequest, ToolSpec } from './model-provider.js';

/** What a part of a request is: the static prefix (system text, tool definitions) or one history message. */
export type RequestPartKind = 'system' | 'tool' | 'message';

export interface RequestPart {
  readonly kind: RequestPartKind;
  readonly text: string;
  /** The message this part renders (for `message` parts). */
  readonly message?: ModelMessage;
}

/**
 * A request as a prefix cache sees it, in the order OpenAI-compatible servers lay out a prompt:
 * the system text, then the tool definitions, then the history. Each part is rendered on its
 * own, so appending a message never changes a byte before it. The scripted provider counts its
 * tokens from these parts, and `npm run bench -- cache` compares requests byte for byte on them.
 */
export function requestParts(request: ModelRequest): RequestPart[] {
  const parts: RequestPart[] = [{ kind: 'system', text: systemText(request.system) }];
  for (const tool of request.tools) parts.push({ kind: 'tool', text: toolText(tool) });
  for (const message of request.messages) parts.push({ kind: 'message', text: messageText(message), message });
  return parts;
}

/** The last system part rendered: every step and every node of a run sends the same system text. */
let lastSystem: { readonly system: string; readonly text: string } | undefined;

function systemText(system: string): string {
  if (lastSystem?.system !== system) lastSystem = { system, text: `system\n${system}\n` };
  return lastSystem.text;
}

/** Tool specs are immutable values, the same objects from step to step: each is rendered once. */
const toolTexts = new WeakMap<ToolSpec, string>();

function toolText(tool: ToolSpec): string {
  let text = toolTexts.get(tool);
  if (text === undefined) {
    text = `tool ${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}\n`;
    toolTexts.set(tool, text);
  }
  return text;
}

/** The whole request as one text: its parts joined. */
export function requestText(request: ModelRequest): string {
  return requestParts(request).map((part) => part.text).join('');
}

export function messageText(message: ModelMessage): string {
  switch (message.role) {
    case 'user':
      return `user\n${message.content}\n`;
    case 'tool':
      return `tool ${message.toolCallId}\n${message.content}\n`;
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `call ${call.id} ${call.name} ${call.argsText ?? JSON.stringify(call.args)}\n`).join('');
      return `assistant\n${message.reasoning ?? ''}\n${message.content}\n${calls}`;
    }
  }
}
