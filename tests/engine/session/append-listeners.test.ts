import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, type EventDraft, type Store } from '../../../engine/index.js';
import { AppendListeners } from '../../../engine/session/append-listeners.js';
import type { SessionEvent } from '../../../engine/session/event-types.js';
import { openTempStore } from '../../helpers/temp-store.js';

const started = (nodeId: string | null, seq: number): SessionEvent => ({ seq, runId: 'r', nodeId, turn: 0, step: 0, type: 'node/started', payload: { attempt: 1 }, createdAt: '', version: 1 }) as unknown as SessionEvent;

describe('AppendListeners', () => {
  it("tells a node's listener only of its node's events, in order, and every-event listeners of all of them", () => {
    const listeners = new AppendListeners();
    const heard: string[] = [];
    listeners.add((events) => heard.push(`all: ${events.map((event) => event.seq).join(',')}`));
    listeners.addForNode('a', (events) => heard.push(`a: ${events.map((event) => event.seq).join(',')}`));
    listeners.addForNode(null, (events) => heard.push(`run: ${events.map((event) => event.seq).join(',')}`));

    listeners.notify([started('a', 1), started('b', 2), started(null, 3), started('a', 4)]);
    listeners.notify([started('b', 5)]);

    expect(heard).toEqual(['all: 1,2,3,4', 'a: 1,4', 'run: 3', 'all: 5']);
  });

  it('stops telling a listener once it unsubscribes, and keeps telling the others of its node', () => {
    const listeners = new AppendListeners();
    const first: number[] = [];
    const second: number[] = [];
    const stopFirst = listeners.addForNode('a', (events) => first.push(...events.map((event) => event.seq)));
    listeners.addForNode('a', (events) => second.push(...events.map((event) => event.seq)));

    listeners.notify([started('a', 1)]);
    stopFirst();
    listeners.notify([started('a', 2)]);

    expect(first).toEqual([1]);
    expect(second).toEqual([1, 2]);
  });
});

describe("a log's node listeners", () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await openTempStore()));
  afterEach(async () => cleanup());

  it("keep each node's session current with its own events while many nodes append at once", async () => {
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
    const log = new EventLog(store.db, run.id);
    const ids = Array.from({ length: 8 }, (_, index) => `n${index}`);
    const sessions = await Promise.all(ids.map((id) => Session.open(log, id)));
    const allHeard: number[] = [];
    log.onAppend((events) => allHeard.push(...events.map((event) => event.seq)));

    await Promise.all(
      ids.map(async (nodeId, index) => {
        const draft: EventDraft = { type: 'user/message', nodeId, turn: 1, step: 0, payload: { content: `task of ${nodeId}`, source: 'instruction' } };
        await log.append(draft);
        if (index % 2 === 0) await log.append({ ...draft, payload: { content: `more for ${nodeId}`, source: 'instruction' } });
      }),
    );

    for (const [index, session] of sessions.entries()) {
      const expected = [`task of ${ids[index]}`, ...(index % 2 === 0 ? [`more for ${ids[index]}`] : [])];
      expect(session.deriveMessages().map((message) => message.content)).toEqual(expected);
    }
    expect(allHeard).toHaveLength(12);
    for (const session of sessions) session.close();
  });
});
