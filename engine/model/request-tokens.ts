import type { ModelMessage } from './model-message.js';
import type { ModelRequest } from './model-provider.js';
import { PLAIN_TEXT, gptTokenizer } from './token-estimate.js';

/**
 * The tokens of a request in the order a provider sees them: system, tools, then messages. Each
 * part is tokenized on its own, so appending a message never changes the tokens before it, as a
 * real prefix cache requires.
 */
export function requestTokens(request: ModelRequest, memo?: WeakMap<ModelMessage, readonly number[]>): number[] {
  const { encode } = gptTokenizer();
  const tokens: number[] = [];
  const add = (part: readonly number[]): void => {
    for (const token of part) tokens.push(token);
  };
  add(encode(`system\n${request.system}\n`, PLAIN_TEXT));
  for (const tool of request.tools) add(encode(`tool ${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}\n`, PLAIN_TEXT));
  for (const message of request.messages) {
    // History messages are the same objects from step to step: tokenize each once.
    let part = memo?.get(message);
    if (part === undefined) {
      part = encode(messageText(message), PLAIN_TEXT);
      memo?.set(message, part);
    }
    add(part);
  }
  return tokens;
}

function messageText(message: ModelMessage): string {
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
