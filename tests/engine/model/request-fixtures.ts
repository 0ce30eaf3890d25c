import { createOpenAICompatibleProvider, createProvider, type ModelProvider, type ModelRequest, type StreamPart } from '../../../engine/model/index.js';
import type { ModelMessage } from '../../../engine/model/model-message.js';

export const READ_FILE_TOOL = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
} as const;

export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    agent: 'node:edit-a',
    model: 'gpt-4.1',
    system: 'You are a careful coding agent.',
    messages: [{ role: 'user', seq: 1, source: 'instruction', content: 'Rename Shape.area() to Shape.getArea().' }],
    tools: [READ_FILE_TOOL],
    parameters: {},
    sessionId: 'run-1',
    ...overrides,
  };
}

/** A history where the model called read_file and got its result, then the runtime context changed. */
export function historyWithToolRound(reasoning?: string, reasoningSignature?: string): ModelMessage[] {
  return [
    { role: 'user', seq: 1, source: 'instruction', content: 'Rename Shape.area() to Shape.getArea().' },
    {
      role: 'assistant', seq: 2, content: 'Reading both files.',
      ...(reasoning === undefined ? {} : { reasoning }),
      ...(reasoningSignature === undefined ? {} : { reasoningSignature }),
      toolCalls: [
        { id: 'call_00_a1', name: 'read_file', args: { path: 'src/shape.ts' } },
        { id: 'call_01_b2', name: 'read_file', args: { path: 'src/circle.ts' } },
      ],
    },
    { role: 'tool', seq: 3, toolCallId: 'call_00_a1', toolName: 'read_file', content: 'export interface Shape { area(): number }', isError: false },
    { role: 'tool', seq: 4, toolCallId: 'call_01_b2', toolName: 'read_file', content: 'ENOENT: src/circle.ts', isError: true },
    { role: 'user', seq: 5, source: 'runtime-context', content: 'cwd: /work/repo' },
  ];
}

/** Every part a provider streams, or the error it ended with (with the parts before it). */
export async function drain(provider: ModelProvider, request: ModelRequest, signal: AbortSignal = new AbortController().signal): Promise<{ parts: StreamPart[]; error?: unknown }> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of provider.stream(request, signal)) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}

export function toolCallsOf(parts: readonly StreamPart[]): Extract<StreamPart, { type: 'tool-call' }>[] {
  return parts.filter((part): part is Extract<StreamPart, { type: 'tool-call' }> => part.type === 'tool-call');
}

export function textOf(parts: readonly StreamPart[], type: 'text' | 'reasoning' = 'text'): string {
  return parts.map((part) => (part.type === type ? part.text : '')).join('');
}

/** A sleep that records the delays asked for and returns at once. */
export function recordingSleep(): { sleep: (ms: number, signal: AbortSignal) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

/** An OpenAI provider against a loopback server. */
export function openAIProviderAt(url: string, options: { idleTimeoutMs?: number } = {}): ModelProvider {
  return createOpenAICompatibleProvider({
    id: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-test', apiKeyEnv: 'OPENAI_API_KEY',
    contextWindow: () => 1_047_576, maxTokensField: 'max_completion_tokens', ...options,
  });
}

/** DeepSeek's reasoner against a loopback server. */
export function deepSeekProviderAt(url: string): ModelProvider {
  return createProvider('deepseek:deepseek-reasoner', { baseUrl: url, env: { DEEPSEEK_API_KEY: 'sk-ds' } });
}
