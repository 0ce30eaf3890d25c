import { createRequire } from 'node:module';
import type * as GptTokenizerModule from 'gpt-tokenizer';
import { keptByKey } from '../kept-by-key.js';
import type { ModelMessage } from './model-message.js';
import type { ToolSpec } from './model-provider.js';
import { TokenizerThread, TokenizerThreadError, type Tokenizer, type TokenizerThreadOptions } from './tokenizer-thread.js';

/** Tokens a message costs beyond its text: role markers and separators, as chat formats add them. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Token estimates with the o200k BPE (gpt-tokenizer), used where a provider reports nothing:
 * context fill, compaction pressure, plan cost estimates. DeepSeek and Claude tokenize
 * differently; within ~15 % is what these estimates are for.
 */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return countTokens(text);
}

type GptTokenizer = typeof GptTokenizerModule;
/** How many texts, of at most how many characters, `countTokens` and `encodeTokens` remember. */
const MEMO_TEXTS = 1024;
const MEMO_TEXT_LENGTH = 4096;
let inProcess: Tokenizer | undefined;
let thread: TokenizerThread | undefined;

/**
 * The process's tokenizer: the thread `loadTokenizer` started, or else gpt-tokenizer loaded in
 * process on first use (its BPE tables take about 0.3 s of CPU; commands that count nothing skip
 * them). A thread that fails is dropped for the in-process tables, which give the same counts.
 */
export function tokenizer(): Tokenizer {
  return thread === undefined ? inProcessTokenizer() : THREAD_OR_IN_PROCESS;
}

/**
 * The same texts come back across a run's nodes: a dependency's result reaches each node that
 * depends on it, a node's instruction is counted by its session and encoded by the request. Short
 * texts are answered from the last ones seen (`encode`'s arrays are shared: read only).
 */
const MEMO = {
  count: keptByKey(MEMO_TEXTS, (text: string) => tokenizer().count(text)),
  encode: keptByKey(MEMO_TEXTS, (text: string): readonly number[] => tokenizer().encode(text)),
};

/** `tokenizer().count(text)`, from memory when the text was counted lately. */
export function countTokens(text: string): number {
  return text.length <= MEMO_TEXT_LENGTH ? MEMO.count(text) : tokenizer().count(text);
}

/** `tokenizer().encode(text)`, from memory when the text was encoded lately (the array is shared: read only). */
export function encodeTokens(text: string): readonly number[] {
  return text.length <= MEMO_TEXT_LENGTH ? MEMO.encode(text) : tokenizer().encode(text);
}

/**
 * Starts loading the tokenizer's tables in a thread of their own (`TokenizerThread`), for a
 * command that will count: they load on another core while it sets up, and their collections
 * never pause its thread. Does nothing once a tokenizer is loaded.
 */
export function loadTokenizer(options: TokenizerThreadOptions = {}): void {
  if (thread !== undefined || inProcess !== undefined) return;
  try {
    thread = TokenizerThread.start(options);
  } catch {
    // No thread to be had (a worker limit): the tables load here, now, as before there were threads.
    inProcessTokenizer();
  }
}

function inProcessTokenizer(): Tokenizer {
  if (inProcess === undefined) {
    const { countTokens, encode } = createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer;
    inProcess = { count: (text) => countTokens(text, PLAIN_TEXT), encode: (text) => encode(text, PLAIN_TEXT) };
  }
  return inProcess;
}

const THREAD_OR_IN_PROCESS: Tokenizer = {
  count: (text) => throughThread((running) => running.count(text), (local) => local.count(text)),
  encode: (text) => throughThread((running) => running.encode(text), (local) => local.encode(text)),
};

function throughThread<T>(ask: (running: TokenizerThread) => T, fallback: (local: Tokenizer) => T): T {
  if (thread !== undefined) {
    try {
      return ask(thread);
    } catch (error) {
      if (!(error instanceof TokenizerThreadError)) throw error;
      thread = undefined;
    }
  }
  return fallback(inProcessTokenizer());
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
