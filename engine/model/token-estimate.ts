import { createRequire } from 'node:module';
import type * as GptTokenizerModule from 'gpt-tokenizer';
import { keptByKey } from '../kept-by-key.js';
import type { ModelMessage } from './model-message.js';
import type { ToolSpec } from './model-provider.js';

/** Tokens a message costs beyond its text: role markers and separators, as chat formats add them. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Token estimates with the o200k BPE (gpt-tokenizer), used where a provider reports nothing:
 * context fill, compaction pressure, plan cost estimates. DeepSeek and Claude tokenize
 * differently; within ~15 % is what these estimates are for.
 */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return tokenizer()(text, PLAIN_TEXT);
}

type GptTokenizer = typeof GptTokenizerModule;
let loaded: GptTokenizer | undefined;

/** gpt-tokenizer, loaded on first use: its BPE tables take a noticeable part of a second, and commands that count nothing skip them. */
export function gptTokenizer(): GptTokenizer {
  loaded ??= createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer;
  return loaded;
}

/** Loads the tokenizer's tables now, so that the first count does not pay for them. */
export function loadTokenizer(): void {
  gptTokenizer();
}

function tokenizer(): GptTokenizer['countTokens'] {
  return gptTokenizer().countTokens;
}

/**
 * Text is text: a file that contains `<|endoftext|>` (tokenizer sources, model docs) is counted,
 * not refused (gpt-tokenizer throws on special tokens by default).
 */
export const PLAIN_TEXT = { disallowedSpecial: new Set<string>() } as const;

export function estimateMessageTokens(message: ModelMessage): number {
  switch (message.role) {
    case 'user':
      return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content);
    case 'tool':
      return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content) + 8;
    case 'assistant': {
      let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(message.content);
      if (message.reasoning !== undefined) tokens += estimateTextTokens(message.reasoning);
      for (const call of message.toolCalls) tokens += 8 + estimateTextTokens(call.name) + estimateTextTokens(call.argsText ?? JSON.stringify(call.args));
      return tokens;
    }
  }
}

/** Tool specs are immutable values, the same objects from step to step: each is counted once. */
const toolTokens = new WeakMap<ToolSpec, number>();

export function estimateToolTokens(tools: readonly ToolSpec[]): number {
  let tokens = 0;
  for (const tool of tools) {
    let counted = toolTokens.get(tool);
    if (counted === undefined) {
      counted = 8 + estimateTextTokens(`${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}`);
      toolTokens.set(tool, counted);
    }
    tokens += counted;
  }
  return tokens;
}

/** System prompts counted lately: a node's prompt is the same text at every step. */
/** `estimateTextTokens` of a system prompt, counted once per distinct text (the last few kept). */
export const estimateSystemTokens: (system: string) => number = keptByKey(32, (system: string) => estimateTextTokens(system));
