import type { ModelProvider, StreamPart } from '../../engine/index.js';
import type { ModelRequest } from '../../engine/model/model-provider.js';

export type FakeTurn =
  | { readonly text?: string; readonly toolCalls?: readonly { name: string; args: unknown; id?: string }[]; readonly usage?: { input: number; output: number } }
  | { readonly error: Error };

/**
 * A recording fake of our ModelProvider: answers each call with the next turn of its queue and
 * keeps every request it received.
 */
export class FakeModel implements ModelProvider {
  readonly id = 'fake';
  readonly requests: ModelRequest[] = [];
  #turns: FakeTurn[];
  #calls = 0;

  constructor(turns: readonly FakeTurn[], readonly window = 100_000) {
    this.#turns = [...turns];
  }

  contextWindow(): number {
    return this.window;
  }

  async *stream(request: ModelRequest): AsyncIterable<StreamPart> {
    this.requests.push(structuredClone({ ...request, messages: [...request.messages], tools: [...request.tools] }));
    const turn = this.#turns.shift();
    if (turn === undefined) throw new Error('fake model: no turn left');
    if ('error' in turn) throw turn.error;
    this.#calls += 1;
    if (turn.text) yield { type: 'text', text: turn.text };
    for (const [index, call] of (turn.toolCalls ?? []).entries()) {
      yield { type: 'tool-call', id: call.id ?? `call_${this.#calls}_${index}`, name: call.name, args: call.args };
    }
    yield { type: 'usage', usage: { input: turn.usage?.input ?? 100, output: turn.usage?.output ?? 10, cacheHit: 0, reasoning: 0 } };
    yield { type: 'finish', reason: (turn.toolCalls ?? []).length > 0 ? 'tool-calls' : 'stop' };
  }
}
