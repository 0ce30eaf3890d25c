import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type Approver, type ModelProvider, type StreamPart, type Store } from '../../../engine/index.js';
import type { ModelRequest } from '../../../engine/model/model-provider.js';
import { FakeTools } from '../../helpers/fake-tools.js';
import { openTempStore } from '../../helpers/temp-store.js';

const denyAll: Approver = { interactive: false, ask: async () => ({ decision: 'no', reason: 'no terminal' }) };

let store: Store;
let cleanup: () => Promise<void>;
let runId: string;
beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'react' })).id;
});
afterEach(async () => cleanup());

/** A model that notes, when called, whether its request's record was already stored, then answers (or waits to be stopped). */
class WatchingModel implements ModelProvider {
  readonly id = 'watching';
  headersStoredAtCall: number[] = [];
  stopped = false;

  constructor(
    private readonly log: EventLog,
    private readonly answers: boolean,
  ) {}

  contextWindow(): number {
    return 100_000;
  }

  async *stream(_request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    this.headersStoredAtCall.push((await this.log.read({ types: ['request/header'] })).length);
    if (!this.answers) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      this.stopped = true;
      throw signal.reason;
    }
    yield { type: 'text', text: 'Done.' };
    yield { type: 'usage', usage: { input: 100, output: 10, cacheHit: 0, reasoning: 0 } };
    yield { type: 'finish', reason: 'stop' };
  }
}

async function runWith(model: ModelProvider, log: EventLog) {
  const tools = new FakeTools({});
  return runAgent({
    agent: 'react',
    session: await Session.open(log, 'react'),
    prompt: new SystemPrompt().addSection({ id: 'identity', text: 'You are a coding agent.' }).addTools('fake', () => tools.specs()),
    provider: model,
    model: 'watch-1',
    tools,
    toolContext: { runId, nodeId: 'react', workspace: '/w', approver: denyAll },
    instruction: 'Say done.',
    signal: new AbortController().signal,
  });
}

describe('a step records its request while the request is on its way', () => {
  it('sends the request without waiting for its record, and stores the answer after the record', async () => {
    const log = new EventLog(store.db, runId);
    const model = new WatchingModel(log, true);

    const outcome = await runWith(model, log);

    expect(outcome).toMatchObject({ reason: 'done', answer: 'Done.' });
    // The call went out before the record was stored...
    expect(model.headersStoredAtCall).toEqual([0]);
    // ...and the log still reads request, then answer.
    const types = (await log.read({ nodeId: 'react' })).map((event) => event.type);
    expect(types.slice(types.indexOf('request/header'))).toEqual(['request/header', 'request/context', 'assistant/message', 'agent/finished']);
  });

  it('stops the call when its record cannot be stored, and ends the agent with the store\'s error', async () => {
    await sql`create trigger refuse_requests before insert on events when new.type = 'request/header' begin select raise(abort, 'the disk is full'); end`.execute(store.db);
    const log = new EventLog(store.db, runId);
    const model = new WatchingModel(log, false);

    const outcome = await runWith(model, log);

    expect(model.stopped).toBe(true);
    expect(outcome.reason).toBe('error');
    expect(outcome.detail).toContain('the disk is full');
    // No answer was stored for a request the log does not hold.
    expect(await log.read({ types: ['assistant/message'] })).toEqual([]);
  });
});
