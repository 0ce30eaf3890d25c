import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, runSchedule, type EventDraft, type NodeTransition, type Store } from '../../../engine/index.js';
import { nodeEventDraft } from '../../../engine/run/storage/node-event.js';
import { nodeStatesFromEvents } from '../../../engine/run/views/node-states.js';
import type { NodeStatus } from '../../../engine/scheduler/node-status.js';
import { openTempStore } from '../../helpers/temp-store.js';
import { createHarness, node } from './schedule-harness.js';

let store: Store;
let cleanup: () => Promise<void>;
let log: EventLog;

beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  log = new EventLog(store.db, (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id);
});
afterEach(async () => cleanup());

/** Stores each group of transitions as node events in one append, as a run controller does. */
async function persist(changes: readonly NodeTransition<string>[]): Promise<void> {
  const drafts = changes.map((change) => nodeEventDraft(change)).filter((draft): draft is EventDraft => draft !== undefined);
  await log.appendMany(drafts, { effects: async () => undefined });
}

const NODES = [node('read'), node('edit', ['read'], ['src/a.ts']), node('other', ['read']), node('test', ['edit', 'other'])];

describe('runSchedule with the session log', () => {
  it('records every transition as a valid node event, in causal order, with gap-free seqs', async () => {
    const harness = createHarness({ outcome: (id, attempt) => (id === 'edit' && attempt === 1 ? new Error('503') : { status: 'succeeded', result: `${id} ok` }) });
    const result = await harness.clock.run(
      runSchedule({ nodes: NODES, concurrency: 2, execute: harness.execute, onTransitions: persist, retry: { baseDelayMs: 10, jitter: 0 }, sleep: harness.clock.sleep }),
    );
    expect(result.status).toBe('succeeded');
    const events = await log.read();
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const editEvents = events.filter((event) => event.nodeId === 'edit').map((event) => event.type);
    expect(editEvents).toEqual(['node/ready', 'node/started', 'node/retried', 'node/started', 'node/succeeded']);
    const seqOf = (nodeId: string, type: string): number => events.find((event) => event.nodeId === nodeId && event.type === type)!.seq;
    expect(seqOf('read', 'node/succeeded')).toBeLessThan(seqOf('edit', 'node/ready'));
    expect(seqOf('edit', 'node/succeeded')).toBeLessThan(seqOf('test', 'node/started'));
  });

  it('resumes a cancelled run from the folded events without re-running what succeeded', async () => {
    const first = createHarness({ latency: (id) => (id === 'read' ? 5 : 50) });
    const controller = new AbortController();
    void first.clock.sleep(20).then(() => controller.abort('Ctrl-C'));
    const cancelled = await first.clock.run(runSchedule({ nodes: NODES, concurrency: 2, signal: controller.signal, execute: first.execute, onTransitions: persist }));
    expect(cancelled.status).toBe('cancelled');

    const folded = nodeStatesFromEvents(await log.read());
    const statuses = new Map<string, NodeStatus>([...folded].map(([id, state]) => [id, state.status]));
    expect(Object.fromEntries(statuses)).toEqual({ read: 'succeeded', edit: 'cancelled', other: 'cancelled' });

    const second = createHarness({});
    const resumed = await second.clock.run(
      runSchedule({
        nodes: NODES,
        concurrency: 2,
        execute: second.execute,
        onTransitions: persist,
        initialStatus: statuses,
        initialAttempts: new Map([...folded].map(([id, state]) => [id, state.attempts])),
      }),
    );
    expect(resumed.status).toBe('succeeded');
    expect(second.executions.map((execution) => `${execution.nodeId}#${execution.attempt}`)).toEqual(['edit#2', 'other#2', 'test#1']);
    const final = nodeStatesFromEvents(await log.read());
    expect([...final.values()].every((state) => state.status === 'succeeded')).toBe(true);
  });
});
