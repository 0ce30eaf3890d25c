import { DEFAULT_ROLES, type ModelMessage, type ModelRequest } from '../../engine/index.js';

/**
 * The same request laid out as dagent did before the prompt-cache work, for the bench's
 * side-by-side: a node's role prompt was the system prompt's last section (not a paragraph of its
 * instruction), the tools were sorted by name (not the read tools first), and the Anthropic body
 * had no breakpoint on the last tool (when there was system text) nor where the previous request ended. Same content, only the placement differs.
 */
export function legacyRequest(request: ModelRequest): ModelRequest {
  const tools = [...request.tools].sort((a, b) => a.name.localeCompare(b.name));
  const instruction = request.messages.find((message) => message.role === 'user' && message.source === 'instruction');
  const role = instruction === undefined ? undefined : Object.values(DEFAULT_ROLES).find((candidate) => instruction.content.includes(`\n\n${candidate.prompt}`));
  if (role === undefined || instruction === undefined || instruction.role !== 'user') return { ...request, tools };
  const messages: ModelMessage[] = request.messages.map((message) =>
    message === instruction ? { ...instruction, content: instruction.content.replace(`\n\n${role.prompt}`, '') } : message,
  );
  return { ...request, system: `${request.system}\n\n${role.prompt}`, tools, messages };
}

/** The Anthropic body with only the breakpoints the old layout set: the static prefix (the system block, or the last tool without one) and the last block. */
export function legacyAnthropicBody(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const messages = body['messages'] as { role: string; content: Record<string, unknown>[] }[];
  const tools = body['tools'] as Record<string, unknown>[] | undefined;
  return {
    ...body,
    ...(tools === undefined || body['system'] === undefined ? {} : { tools: tools.map(({ cache_control: _dropped, ...tool }) => tool) }),
    messages: messages.map((message, index) =>
      index === messages.length - 1
        ? message
        : { ...message, content: message.content.map(({ cache_control: _dropped, ...block }) => block) },
    ),
  };
}
