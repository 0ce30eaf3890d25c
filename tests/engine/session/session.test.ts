import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, type Store } from '../../../engine/index.js';
import { openTempStore } from '../../helpers/temp-store.js';

let store: Store;
let cleanup: () => Promise<void>;
let runId: string;

beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id;
});
afterEach(async () => cleanup());

describe('Session', () => {
  it('derives messages from appended events', async () => {
    const log = new EventLog(store.db, runId);
    const session = await Session.open(log, 'a');
    await session.append({ type: 'user/message', payload: { content: 'do it', source: 'instruction' } });
    await session.append({
      type: 'assistant/message',
      payload: { content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'x' } }], finishReason: 'tool-calls', provider: 'p', model: 'm' },
    });
    await session.append({
      type: 'tool/result',
      payload: { toolCallId: 'c1', name: 'read_file', content: 'hello', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 5 } },
    });
    const messages = session.deriveMessages();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages.map((m) => m.seq)).toEqual([2, 3, 4]);
  });
});
