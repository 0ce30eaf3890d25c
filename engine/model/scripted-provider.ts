import type { ModelMessage } from './model-message.js';
import { abortableSleep } from './abort-reason.js';
import { modelErrorFromHttp } from './http-error.js';
import { ScriptExhaustedError, ScriptFileError } from './model-errors.js';
import type { ModelProvider, ModelRequest, StreamPart, Usage } from './model-provider.js';
import { PrefixCache } from './prefix-cache.js';
import { requestTokenPartsAsync } from './request-tokens.js';
import { headersFrom } from './retry-after.js';
import { parseScript, readScriptFile, type ScriptedModelScript, type ScriptedTurn } from './scripted-script.js';
import { parseToolArgs } from './tool-args.js';
import { countTokensOfAsync } from './token-estimate.js';

export const SCRIPTED_DEFAULT_CONTEXT_WINDOW = 200_000;
const INLINE_SCRIPT_NAME = '<inline script>';

export interface ScriptedProviderOptions {
  /** A script object (validated here) ... */
  readonly script?: unknown;
  /** ... or the path of a script file. */
  readonly file?: string;
  readonly readFile?: (path: string) => string;
  /** Waits a turn's latency and the pauses of its streamed text; injectable so tests never sleep. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface ScriptedProvider extends ModelProvider {
  /** Turns left in an agent's queue. */
  remaining(agent: string): number;
}

/**
 * Replays model turns from a script, for tests, the offline demo and reproducible bug reports.
 * Each agent (`planner`, `node:<id>`, `summarizer`, `react`) has its own queue, consumed one turn
 * per call in call order. The queue positions and the simulated prefix cache live in this
 * instance only: a new instance (a new process, e.g. after `resume`) starts every queue from its
 * first turn again, except that a node's queue (`node:<id>`) never hands out a turn before the
 * number of answers its request already holds (a node resumed from its last step goes on). An `error` turn fails the call exactly as the HTTP providers would for that
 * status, headers and message. A turn with `streamMs` streams its text word by word over that
 * time, as a real model's text arrives. Usage not given by the turn is counted with gpt-tokenizer, and the
 * cache hit is the longest prefix shared with an earlier request of the same `sessionId`.
 */
export function createScriptedProvider(options: ScriptedProviderOptions): ScriptedProvider {
  const source = options.file ?? INLINE_SCRIPT_NAME;
  if (options.script === undefined && options.file === undefined) throw new ScriptFileError(source, 'give a script object or a script file');
  const script: ScriptedModelScript =
    options.script !== undefined ? parseScript(options.script, source) : readScriptFile(source, options.readFile);
  const sleep = options.sleep ?? abortableSleep;
  const positions = new Map<string, number>();
  const cache = new PrefixCache();
  // The cache sees the requests in the order they were made, whichever's tokens are ready first.
  const cacheOrder: { last: Promise<unknown> } = { last: Promise.resolve() };
  const tokenMemo = new WeakMap<ModelMessage, readonly number[]>();

  const nextTurn = (agent: string, messages: readonly ModelMessage[]): { turn: ScriptedTurn; index: number } => {
    const queue = script.agents[agent] ?? [];
    // A node's conversation that goes on after its process stopped holds the answers of the turns
    // it consumed: its queue goes on after them, as a real model answers the conversation it gets.
    const answered = agent.startsWith('node:') ? messages.filter((message) => message.role === 'assistant').length : 0;
    const index = Math.max(positions.get(agent) ?? 0, answered);
    const turn = queue[index];
    if (turn === undefined) throw new ScriptExhaustedError(agent, source);
    positions.set(agent, index + 1);
    return { turn, index };
  };

  return {
    id: 'scripted',
    contextWindow: () => script.contextWindow ?? SCRIPTED_DEFAULT_CONTEXT_WINDOW,
    acceptsImages: () => script.images ?? false,
    remaining: (agent) => Math.max(0, (script.agents[agent]?.length ?? 0) - (positions.get(agent) ?? 0)),
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamPart> {
      const { turn, index } = nextTurn(request.agent, request.messages);
      // Counted while the turn's latency runs, as a provider counts while the answer is on its way:
      // the answer arrives after the latency, not after the latency and this count. A failing turn
      // counts nothing (its request is not a prefix the cache has seen).
      const latencyMs = turn.latencyMs ?? script.defaults?.latencyMs ?? 0;
      const latency = latencyMs > 0 || signal.aborted ? sleep(latencyMs, signal) : undefined;
      const usage = turn.error === undefined ? scriptedUsage(request, turn, cache, cacheOrder, tokenMemo) : undefined;
      // Met below, after the latency (an abort during the latency leaves it unread).
      usage?.catch(() => undefined);
      await latency;
      if (turn.error !== undefined) {
        const headers = Object.fromEntries(Object.entries(turn.error.headers ?? {}).map(([name, value]) => [name, String(value)]));
        throw modelErrorFromHttp({
          provider: 'scripted', status: turn.error.status, headers: headersFrom(headers),
          body: JSON.stringify({ error: { message: turn.error.message } }),
        });
      }
      if (turn.reasoning !== undefined && turn.reasoning.length > 0) yield { type: 'reasoning', text: turn.reasoning };
      if (turn.text !== undefined && turn.text.length > 0) {
        const streamMs = turn.streamMs ?? script.defaults?.streamMs ?? 0;
        if (streamMs === 0) yield { type: 'text', text: turn.text };
        else {
          const pieces = turn.text.match(/\s*\S+\s*/g) ?? [turn.text];
          for (const piece of pieces) {
            yield { type: 'text', text: piece };
            await sleep(streamMs / pieces.length, signal);
          }
        }
      }
      const toolCalls = (turn.toolCalls ?? []).map((call, position) => ({
        type: 'tool-call' as const,
        id: call.id ?? `call_${request.agent.replace(/[^\w-]/g, '_')}_${index + 1}_${position + 1}`,
        name: call.name,
        ...(call.argsText !== undefined ? parseToolArgs(call.argsText) : { args: call.args ?? {} }),
      }));
      yield* toolCalls;
      if (usage !== undefined) yield { type: 'usage', usage: await usage };
      yield { type: 'finish', reason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop') };
    },
  };
}

/**
 * The turn's usage. The request's new messages are encoded while the caller goes on (by the
 * tokenizer's thread, when it has one), as a provider counts while its answer is on the way.
 */
async function scriptedUsage(request: ModelRequest, turn: ScriptedTurn, cache: PrefixCache, order: { last: Promise<unknown> }, tokenMemo: WeakMap<ModelMessage, readonly number[]>): Promise<Usage> {
  const tokenized = requestTokenPartsAsync(request, tokenMemo);
  const looked = order.last.then(async () => cache.lookupAndStoreParts(request.sessionId, await tokenized));
  order.last = looked.catch(() => undefined);
  // The answer's texts: its text, its reasoning, each tool call's name and arguments.
  const answer = [turn.text ?? '', turn.reasoning ?? '', ...(turn.toolCalls ?? []).map((call) => `${call.name} ${call.argsText ?? JSON.stringify(call.args ?? {})}`)];
  const counted = answer.filter((text) => text.length > 0);
  const [parts, cacheHit, answered] = await Promise.all([tokenized, looked, countTokensOfAsync(counted)]);
  const counts = new Map(counted.map((text, index) => [text, answered[index]!]));
  const tokensOf = (text: string): number => counts.get(text) ?? 0;
  const reasoning = tokensOf(turn.reasoning ?? '');
  const given = turn.usage ?? {};
  const estimated = given.input === undefined || given.output === undefined;
  return {
    input: given.input ?? parts.reduce((count, part) => count + part.length, 0),
    output: given.output ?? answer.reduce((count, text) => count + tokensOf(text), 0),
    cacheHit: given.cacheHit ?? cacheHit,
    reasoning: given.reasoning ?? reasoning,
    ...(estimated ? { estimated: true } : {}),
  };
}
