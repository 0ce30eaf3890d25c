import { describe, expect, it } from 'vitest';
import {
  ContextOverflowError,
  ModelError,
  StreamInterruptedError,
  callModel,
  type ModelProvider,
  type ModelRequest,
  type StreamPart,
} from '../../../engine/model/index.js';
import { modelRequest, recordingSleep } from './request-fixtures.js';

/** A provider that plays one list of parts (or a failure after them) per call. */
function fakeProvider(attempts: readonly { parts: readonly StreamPart[]; fail?: Error }[]): ModelProvider & { calls: ModelRequest[] } {
  const calls: ModelRequest[] = [];
  return {
    id: 'fake',
    calls,
    contextWindow: () => 100_000,
    async *stream(request) {
      const attempt = attempts[calls.length];
      calls.push(request);
      if (attempt === undefined) throw new Error('no attempt left');
      yield* attempt.parts;
      if (attempt.fail !== undefined) throw attempt.fail;
    },
  };
}

const signal = (): AbortSignal => new AbortController().signal;
const interrupted = (): StreamInterruptedError => new StreamInterruptedError('connection lost', { provider: 'fake', retryable: true });

describe('callModel', () => {
  it('collects text, reasoning, signature, tool calls, usage and finish reason', async () => {
    const provider = fakeProvider([{
      parts: [
        { type: 'reasoning', text: 'Need ' },
        { type: 'reasoning', text: 'the file.' },
        { type: 'reasoning-signature', signature: 'sig-1' },
        { type: 'text', text: 'Reading ' },
        { type: 'text', text: 'it.' },
        { type: 'tool-call', id: 'c1', name: 'read_file', args: { path: 'a.ts' } },
        { type: 'tool-call', id: 'c2', name: 'grep', args: {}, argsText: '{"pattern"' },
        { type: 'usage', usage: { input: 100, output: 20, cacheHit: 64, reasoning: 5 } },
        { type: 'finish', reason: 'tool-calls' },
      ],
    }]);

    const response = await callModel(provider, modelRequest(), { signal: signal() });

    expect(response).toEqual({
      content: 'Reading it.',
      reasoning: 'Need the file.',
      reasoningSignature: 'sig-1',
      toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a.ts' } }, { id: 'c2', name: 'grep', args: {}, argsText: '{"pattern"' }],
      usage: { input: 100, output: 20, cacheHit: 64, reasoning: 5 },
      finishReason: 'tool-calls',
      attempts: 1,
    });
  });

  it('discards the partial output of a failed attempt and keeps only the retry', async () => {
    const provider = fakeProvider([
      { parts: [{ type: 'text', text: 'Half of a first answ' }, { type: 'tool-call', id: 'x', name: 'write_file', args: {} }], fail: interrupted() },
      { parts: [{ type: 'text', text: 'The second answer.' }, { type: 'finish', reason: 'stop' }] },
    ]);
    const seen: StreamPart[] = [];
    const { sleep, delays } = recordingSleep();

    const response = await callModel(provider, modelRequest(), { signal: signal(), sleep, random: () => 0.5, onPart: (part) => seen.push(part) });

    expect(response.content).toBe('The second answer.');
    expect(response.toolCalls).toEqual([]);
    expect(response.attempts).toBe(2);
    expect(delays).toEqual([250]);
    expect(seen.filter((part) => part.type === 'text')).toHaveLength(2);
  });

  it('tells onRetry each failed attempt, its delay and its error, and gives up after three retries', async () => {
    const errors = [interrupted(), interrupted(), interrupted(), interrupted()];
    const provider = fakeProvider(errors.map((fail) => ({ parts: [], fail })));
    const notices: unknown[] = [];

    const call = callModel(provider, modelRequest(), { signal: signal(), sleep: recordingSleep().sleep, random: () => 1, onRetry: (notice) => notices.push(notice) });

    await expect(call).rejects.toBe(errors[3]);
    expect(notices).toEqual([
      { attempt: 1, delayMs: 500, error: errors[0] },
      { attempt: 2, delayMs: 1000, error: errors[1] },
      { attempt: 3, delayMs: 2000, error: errors[2] },
    ]);
    expect(provider.calls).toHaveLength(4);
  });

  it('passes a ContextOverflowError through untouched, without retrying', async () => {
    const overflow = new ContextOverflowError('prompt is too long', { provider: 'fake', status: 400 });
    const provider = fakeProvider([{ parts: [], fail: overflow }, { parts: [{ type: 'finish', reason: 'stop' }] }]);

    await expect(callModel(provider, modelRequest(), { signal: signal(), sleep: recordingSleep().sleep })).rejects.toBe(overflow);
    expect(provider.calls).toHaveLength(1);
  });

  it('estimates usage when the provider reported none, and says so', async () => {
    const provider = fakeProvider([{ parts: [{ type: 'text', text: 'Renamed area() to getArea() everywhere.' }, { type: 'finish', reason: 'stop' }] }]);

    const response = await callModel(provider, modelRequest(), { signal: signal() });

    expect(response.usage.estimated).toBe(true);
    expect(response.usage.output).toBeGreaterThan(5);
    expect(response.usage.input).toBeGreaterThan(response.usage.output);
    expect(response.usage.cacheHit).toBe(0);
  });

  it('counts text with special-token markers instead of refusing it', async () => {
    const provider = fakeProvider([{ parts: [{ type: 'text', text: 'The tokenizer ends documents with <|endoftext|>.' }, { type: 'finish', reason: 'stop' }] }]);

    const response = await callModel(provider, modelRequest({ system: 'Docs mention <|im_start|> too.' }), { signal: signal() });

    expect(response.usage.output).toBeGreaterThan(5);
  });

  it('does not start, and does not retry, once the signal is aborted', async () => {
    const controller = new AbortController();
    const provider = fakeProvider([{ parts: [], fail: new ModelError('503', { provider: 'fake', status: 503, retryable: true }) }]);
    controller.abort(new Error('stop'));

    await expect(callModel(provider, modelRequest(), { signal: controller.signal })).rejects.toThrow('stop');
    expect(provider.calls).toHaveLength(0);
  });

  it('aborts a retry wait', async () => {
    const controller = new AbortController();
    const provider = fakeProvider([{ parts: [], fail: interrupted() }]);

    const call = callModel(provider, modelRequest(), { signal: controller.signal, onRetry: () => controller.abort(new Error('cancelled while waiting')) });

    await expect(call).rejects.toThrow('cancelled while waiting');
    expect(provider.calls).toHaveLength(1);
  });
});
