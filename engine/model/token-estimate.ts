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
function tokenizer(): Tokenizer {
  return thread === undefined ? inProcessTokenizer() : THREAD_OR_IN_PROCESS;
}

/**
 * The same texts come back across a run's nodes: a dependency's result reaches each node that
 * depends on it, a node's instruction is counted by its session and encoded by the request. Short
 * texts are answered from the last ones seen (`encode`'s arrays are shared: read only).
 */
const counted = new Map<string, number>();
const encoded = new Map<string, readonly number[]>();

/** The text's token count, from memory when it was counted lately. */
export function countTokens(text: string): number {
  return countTokensOf([text])[0]!;
}

/** The text's tokens, from memory when it was encoded lately (the array is shared: read only). */
export function encodeTokens(text: string): readonly number[] {
  return encodeTokensOf([text])[0]!;
}

/** `countTokens` of each text, those not in memory counted in one go (one round trip to the thread). */
export function countTokensOf(texts: readonly string[]): number[] {
  return throughMemo(counted, texts, (missing) => tokenizer().countMany(missing));
}

/** `encodeTokens` of each text, those not in memory encoded in one go. */
export function encodeTokensOf(texts: readonly string[]): (readonly number[])[] {
  return throughMemo(encoded, texts, (missing) => tokenizer().encodeMany(missing));
}

/** `encodeTokensOf`, the texts not in memory encoded without blocking this thread (where the tokenizer has a thread of its own). */
export function encodeTokensOfAsync(texts: readonly string[]): Promise<(readonly number[])[]> {
  return throughMemoAsync(encoded, texts, (missing) => tokenizer().encodeManyAsync(missing));
}

/** `countTokensOf`, the texts not in memory counted without blocking this thread. */
export function countTokensOfAsync(texts: readonly string[]): Promise<number[]> {
  return throughMemoAsync(counted, texts, (missing) => tokenizer().countManyAsync(missing));
}

async function throughMemoAsync<V>(memory: Map<string, V>, texts: readonly string[], compute: (texts: string[]) => Promise<V[]>): Promise<V[]> {
  const { values, missing } = recall(memory, texts);
  return missing.length === 0 ? (values as V[]) : filled(memory, texts, values, missing, await compute(missing));
}

function throughMemo<V>(memory: Map<string, V>, texts: readonly string[], compute: (texts: string[]) => V[]): V[] {
  const { values, missing } = recall(memory, texts);
  return missing.length === 0 ? (values as V[]) : filled(memory, texts, values, missing, compute(missing));
}

/** Each text's value in memory, and the distinct texts that have none. */
function recall<V>(memory: Map<string, V>, texts: readonly string[]): { values: (V | undefined)[]; missing: string[] } {
  const values = texts.map((text) => memory.get(text));
  return { values, missing: [...new Set(texts.filter((_, index) => values[index] === undefined))] };
}

/** Every text's value, with those computed for `missing` remembered. */
function filled<V>(memory: Map<string, V>, texts: readonly string[], values: readonly (V | undefined)[], missing: readonly string[], computed: readonly V[]): V[] {
  const found = new Map(missing.map((text, index) => [text, computed[index]!]));
  for (const [text, value] of found) remember(memory, text, value);
  return texts.map((text, index) => values[index] ?? found.get(text)!);
}

function remember<V>(memory: Map<string, V>, text: string, value: V): void {
  if (text.length > MEMO_TEXT_LENGTH) return;
  if (memory.size >= MEMO_TEXTS) memory.delete(memory.keys().next().value!);
  memory.set(text, value);
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

/** Whether the process's tokenizer thread is loading or counting: a caller about to wait for it has this time for other work. */
export function tokenizerWorking(): boolean {
  return thread?.working === true;
}

function inProcessTokenizer(): Tokenizer {
  if (inProcess === undefined) {
    const { countTokens: count, encode } = createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer;
    const countMany = (texts: readonly string[]): number[] => texts.map((text) => count(text, PLAIN_TEXT));
    const encodeMany = (texts: readonly string[]): number[][] => texts.map((text) => encode(text, PLAIN_TEXT));
    inProcess = { countMany, encodeMany, countManyAsync: async (texts) => countMany(texts), encodeManyAsync: async (texts) => encodeMany(texts) };
  }
  return inProcess;
}

/** The thread's answers; a thread that fails (`TokenizerThreadError`) is dropped for the tables in process, from this call on. */
const THREAD_OR_IN_PROCESS: Tokenizer = {
  countMany: (texts) => throughThread((running) => running.countMany(texts), (local) => local.countMany(texts)),
  encodeMany: (texts) => throughThread((running) => running.encodeMany(texts), (local) => local.encodeMany(texts)),
  countManyAsync: async (texts) => throughThread(async (running) => running.countManyAsync(texts), (local) => local.countManyAsync(texts)),
  encodeManyAsync: async (texts) => throughThread(async (running) => running.encodeManyAsync(texts), (local) => local.encodeManyAsync(texts)),
};

/** `ask` of the running thread, or `fallback` in process; an answer given as a promise is awaited for the thread's failure too. */
function throughThread<T>(ask: (running: TokenizerThread) => T, fallback: (local: Tokenizer) => T): T {
  const running = thread;
  if (running === undefined) return fallback(inProcessTokenizer());
  const dropped = (error: unknown): T => {
    if (!(error instanceof TokenizerThreadError)) throw error;
    if (thread === running) thread = undefined;
    return fallback(inProcessTokenizer());
  };
  try {
    const answer = ask(running);
    return (answer instanceof Promise ? answer.catch(dropped) : answer) as T;
  } catch (error) {
    return dropped(error);
  }
}

/**
 * Text is text: a file that contains `<|endoftext|>` (tokenizer sources, model docs) is counted,
 * not refused (gpt-tokenizer throws on special tokens by default).
 */
export const PLAIN_TEXT = { disallowedSpecial: new Set<string>() } as const;

export function estimateMessageTokens(message: ModelMessage): number {
  return estimateMessagesTokens([message])[0]!;
}

/** `estimateMessageTokens` of each message, their texts counted in one go (one round trip to the tokenizer thread). */
export function estimateMessagesTokens(messages: readonly ModelMessage[]): number[] {
  return messagesTokens(messages, NOTHING_KNOWN).tokens;
}

/**
 * `estimateMessagesTokens`, where the texts `known` has a count for (counted ahead,
 * `countTokensOfAsync`) are not counted again; `counted`: how many texts were.
 */
export function messagesTokens(messages: readonly ModelMessage[], known: ReadonlyMap<string, number>): { readonly tokens: number[]; readonly counted: number } {
  const parts = messages.map(messageParts);
  const texts = parts.flatMap((part) => part.texts);
  const unknown = texts.filter((text) => !known.has(text));
  const counted = unknown.length === 0 ? [] : countTokensOf(unknown);
  let next = 0;
  const counts = texts.map((text) => (known.has(text) ? known.get(text)! : counted[next++]!));
  let at = 0;
  const tokens = parts.map(({ fixed, texts: own }) => {
    let total = fixed;
    for (let index = 0; index < own.length; index += 1) total += counts[at++]!;
    return total;
  });
  return { tokens, counted: unknown.length };
}

const NOTHING_KNOWN: ReadonlyMap<string, number> = new Map();

/** The texts `estimateMessagesTokens` counts of a message: counting these ahead spares it the work. */
export function messageTexts(message: ModelMessage): readonly string[] {
  return messageParts(message).texts;
}

/** The texts of a message that are counted (an empty one costs nothing), and the tokens it costs beyond them. */
function messageParts(message: ModelMessage): { readonly fixed: number; readonly texts: readonly string[] } {
  switch (message.role) {
    case 'user':
      return { fixed: MESSAGE_OVERHEAD_TOKENS, texts: nonEmpty([message.content]) };
    case 'tool':
      return { fixed: MESSAGE_OVERHEAD_TOKENS + 8, texts: nonEmpty([message.content]) };
    case 'assistant': {
      const texts = [message.content, message.reasoning ?? ''];
      for (const call of message.toolCalls) texts.push(call.name, call.argsText ?? JSON.stringify(call.args));
      return { fixed: MESSAGE_OVERHEAD_TOKENS + 8 * message.toolCalls.length, texts: nonEmpty(texts) };
    }
  }
}

function nonEmpty(texts: readonly string[]): string[] {
  return texts.filter((text) => text.length > 0);
}

/** Tool specs are immutable values, the same objects from step to step: each is counted once. */
const toolTokens = new WeakMap<ToolSpec, number>();

export function estimateToolTokens(tools: readonly ToolSpec[]): number {
  let tokens = 0;
  for (const tool of tools) {
    let counted = toolTokens.get(tool);
    if (counted === undefined) {
      counted = TOOL_OVERHEAD_TOKENS + estimateTextTokens(toolText(tool));
      toolTokens.set(tool, counted);
    }
    tokens += counted;
  }
  return tokens;
}

/** Tokens a tool definition costs beyond its name, description and parameters' JSON. */
const TOOL_OVERHEAD_TOKENS = 8;

function toolText(tool: ToolSpec): string {
  return `${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}`;
}

/** `estimateTextTokens` of a system prompt, counted once per distinct text (the last few kept). */
export const estimateSystemTokens = keptByKey(32, (system: string) => estimateTextTokens(system));

/**
 * Counts the system prompts and tools not counted yet, as `estimateSystemTokens` and
 * `estimateToolTokens` will be asked for them, in one request that does not block this thread:
 * the caller can do other work while the tokenizer counts.
 */
export async function countPromptsAhead(prompts: readonly { readonly system: string; readonly tools: readonly ToolSpec[] }[]): Promise<void> {
  const systems = [...new Set(prompts.map((prompt) => prompt.system))].filter((system) => estimateSystemTokens.peek(system) === undefined);
  const tools = [...new Set(prompts.flatMap((prompt) => prompt.tools))].filter((tool) => !toolTokens.has(tool));
  if (systems.length === 0 && tools.length === 0) return;
  const texts = [...systems, ...tools.map(toolText)];
  const counts = await tokenizer().countManyAsync(texts.map((text) => (text.length === 0 ? ' ' : text)));
  systems.forEach((system, index) => estimateSystemTokens.keep(system, system.length === 0 ? 0 : counts[index]!));
  tools.forEach((tool, index) => toolTokens.set(tool, TOOL_OVERHEAD_TOKENS + counts[systems.length + index]!));
}
