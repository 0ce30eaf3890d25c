import { EventLog, Session, createRun, type Store, type Summarizer } from '../../../engine/index.js';
import type { ModelRequest } from '../../../engine/model/model-provider.js';
import type { EventPayload } from '../../../engine/session/event-types.js';
import type { SurfaceEvent } from '../../../engine/session/surface.js';
import { openTempStore } from '../../helpers/temp-store.js';

/** Surface events built in memory, seqs counting from 1, for the pure functions. */
export class SurfaceBuilder {
  readonly events: SurfaceEvent[] = [];
  #seq = 0;
  #calls = 0;

  user(content: string, source: EventPayload<'user/message'>['source'] = 'user'): this {
    this.events.push(this.#event('user/message', { content, source }));
    return this;
  }

  instruction(content = 'Rename area() to getArea().'): this {
    return this.user(content, 'instruction');
  }

  /** An assistant message calling `calls.length` tools, followed by their results unless `open`. */
  turn(calls: { name?: string; args?: unknown; output?: string }[] = [{}], options: { text?: string; open?: boolean } = {}): this {
    const made = calls.map((call) => ({ id: `call-${++this.#calls}`, name: call.name ?? 'read_file', args: call.args ?? { path: 'src/a.ts' }, output: call.output ?? 'ok' }));
    this.events.push(
      this.#event('assistant/message', {
        content: options.text ?? '',
        toolCalls: made.map(({ id, name, args }) => ({ id, name, args })),
        finishReason: made.length > 0 ? 'tool-calls' : 'stop',
        provider: 'test',
        model: 'm',
      }),
    );
    if (options.open !== true) for (const call of made) this.result(call.id, call.name, call.output);
    return this;
  }

  result(toolCallId: string, name: string, content: string): this {
    this.events.push(this.#event('tool/result', { toolCallId, name, content, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: content.length } }));
    return this;
  }

  answer(text: string): this {
    return this.turn([], { text });
  }

  #event(type: SurfaceEvent['type'], payload: unknown): SurfaceEvent {
    this.#seq += 1;
    return { seq: this.#seq, runId: 'r', nodeId: 'n', turn: 0, step: 0, type, payload, createdAt: '' } as SurfaceEvent;
  }
}

export interface NodeFixture {
  readonly store: Store;
  readonly log: EventLog;
  readonly session: Session;
  readonly runId: string;
  cleanup(): Promise<void>;
}

export async function openNode(nodeId = 'edit-a'): Promise<NodeFixture> {
  const { store, cleanup } = await openTempStore();
  const runId = (await createRun(store.db, { task: 'rename', workspace: '/w', mode: 'plan' })).id;
  const log = new EventLog(store.db, runId);
  const session = await Session.open(log, nodeId);
  return { store, log, session, runId, cleanup: async () => { session.close(); await cleanup(); } };
}

let callCounter = 0;

/** Appends one turn: an assistant message calling one tool, and its result. Returns the result's seq. */
export async function appendToolTurn(session: Session, call: { name?: string; args?: unknown; output: string; text?: string; step?: number }): Promise<number> {
  const id = `c${++callCounter}`;
  const name = call.name ?? 'read_file';
  const step = call.step ?? session.lastStep + 1;
  await session.append({
    type: 'assistant/message',
    step,
    payload: { content: call.text ?? '', toolCalls: [{ id, name, args: call.args ?? { path: 'src/a.ts' } }], finishReason: 'tool-calls', provider: 'test', model: 'm' },
  });
  const result = await session.append({
    type: 'tool/result',
    step,
    payload: { toolCallId: id, name, content: call.output, isError: false, meta: { outcome: 'ok', truncated: false, originalLength: call.output.length, args: call.args ?? { path: 'src/a.ts' } } },
  });
  return result.seq;
}

const WORDS = ['apple', 'river', 'stone', 'cloud', 'green', 'house', 'light', 'water', 'table', 'music'];

/** Filler text of `tokens` tokens. */
export function filler(tokens: number): string {
  return Array.from({ length: tokens }, (_, index) => WORDS[index % WORDS.length]).join(' ');
}

/** A summarizer that answers from a list (the last answer repeats) and records each request. */
export function scriptedSummarizer(...answers: (string | Error)[]): Summarizer & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const summarize: Summarizer = async (request) => {
    requests.push(request);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return { text: answer, usage: { input: 100, output: 10, cacheHit: 50, reasoning: 0 } };
  };
  return Object.assign(summarize, { requests });
}

/** A summarizer whose summary names every `src/…` path of the request, so nothing is lost. */
export function pathListingSummarizer(prefix = 'Summary.'): Summarizer & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const summarize: Summarizer = async (request) => {
    requests.push(request);
    const paths = new Set(JSON.stringify(request.messages.slice(0, -1)).match(/src\/[\w.-]+\.ts/g) ?? []);
    return { text: `${prefix} Files: ${[...paths].join(', ')}.` };
  };
  return Object.assign(summarize, { requests });
}
