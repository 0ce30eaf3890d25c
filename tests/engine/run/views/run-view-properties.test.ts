import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_VIEW_EVENT_TYPES, emptyRunView, foldRunView, reduceRunView, type EventDraft, type SessionEvent } from '../../../../engine/index.js';
import { nodeStatesFromEvents } from '../../../../engine/run/views/node-states.js';

const NODE_IDS = ['a', 'b', 'c', 'd'] as const;
const plan = { nodes: NODE_IDS.map((id, index) => ({ id, kind: 'edit', title: id.toUpperCase(), dependsOn: index === 0 ? [] : [NODE_IDS[index - 1]] })) };

const nodeId = fc.constantFrom(...NODE_IDS);
const usage = fc.record({ input: fc.nat(5000), output: fc.nat(500), cacheHit: fc.nat(5000), reasoning: fc.nat(100) });
const toolCallId = fc.constantFrom('t1', 't2', 't3', 't4');

/** Any event a run's node can write, in any order: the fold must never lose count. */
const draft: fc.Arbitrary<EventDraft> = fc.oneof(
  fc.record({ nodeId, attempt: fc.integer({ min: 1, max: 3 }) }).map(({ nodeId: id, attempt }) => ({ type: 'node/started', nodeId: id, payload: { attempt } }) as EventDraft),
  nodeId.map((id) => ({ type: 'node/succeeded', nodeId: id, payload: { result: 'ok' } }) as EventDraft),
  nodeId.map((id) => ({ type: 'node/failed', nodeId: id, payload: { error: 'boom' } }) as EventDraft),
  nodeId.map((id) => ({ type: 'node/ready', nodeId: id, payload: {} }) as EventDraft),
  nodeId.map((id) => ({ type: 'node/skipped', nodeId: id, payload: { reason: 'a dependency failed' } }) as EventDraft),
  nodeId.map((id) => ({ type: 'node/cancelled', nodeId: id, payload: {} }) as EventDraft),
  fc.record({ nodeId, attempt: fc.integer({ min: 1, max: 3 }) }).map(({ nodeId: id, attempt }) => ({ type: 'node/retried', nodeId: id, payload: { attempt, delayMs: 100, error: 'flaky' } }) as EventDraft),
  nodeId.map((id) => ({ type: 'text/streamed', nodeId: id, payload: { text: 'Reading the file ' } }) as EventDraft),
  nodeId.map((id) => ({ type: 'model/retried', nodeId: id, payload: { attempt: 1, delayMs: 100, error: 'HTTP 503' } }) as EventDraft),
  fc.record({ nodeId, usage, cost: fc.double({ min: 0, max: 0.1, noNaN: true }) }).map(
    ({ nodeId: id, usage: used, cost }) =>
      ({ type: 'assistant/message', nodeId: id, payload: { content: '', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'm', usage: used, costUsd: cost } }) as EventDraft,
  ),
  fc.record({ nodeId, toolCallId }).map(({ nodeId: id, toolCallId: call }) => ({ type: 'approval/requested', nodeId: id, payload: { toolCallId: call, tool: 'run_command', args: {}, policy: 'suggest' } }) as EventDraft),
  fc.record({ nodeId, toolCallId, granted: fc.boolean() }).map(
    ({ nodeId: id, toolCallId: call, granted }) => ({ type: granted ? 'approval/granted' : 'approval/denied', nodeId: id, payload: { toolCallId: call, by: 'user' } }) as EventDraft,
  ),
);

function stored(drafts: readonly EventDraft[]): SessionEvent[] {
  const head: EventDraft[] = [{ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }, { type: 'run/started', payload: {} }];
  return [...head, ...drafts].map(
    (item, index) =>
      ({ seq: index + 1, runId: 'r-1', nodeId: item.nodeId ?? null, turn: 0, step: 0, type: item.type, payload: item.payload, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString() }) as SessionEvent,
  );
}

describe('the run view fold, for any order of events', () => {
  it('keeps run totals equal to the sum of its nodes, and every node counted once', () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 60 }), (drafts) => {
        const events = stored(drafts);
        const view = foldRunView('r-1', events);
        const nodes = [...view.nodes.values()];
        const sum = (pick: (node: (typeof nodes)[number]) => number): number => nodes.reduce((total, node) => total + pick(node), 0);
        expect(view.totals.input).toBe(sum((node) => node.tokens.input));
        expect(view.totals.output).toBe(sum((node) => node.tokens.output));
        expect(view.totals.modelCalls).toBe(sum((node) => node.modelCalls));
        expect(view.totals.costUsd).toBeCloseTo(sum((node) => node.costUsd), 9);
        expect(new Set(view.order).size).toBe(view.order.length);
        expect(view.order.length).toBe(view.nodes.size);
        expect(view.lastSeq).toBe(events.length);
      }),
    );
  });

  it("gives the scheduler's recovery the status and attempts the screen shows for every node", () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 60 }), (drafts) => {
        const events = stored(drafts);
        const view = foldRunView('r-1', events);
        const recovered = nodeStatesFromEvents(events);
        for (const id of NODE_IDS) {
          const node = view.nodes.get(id)!;
          expect(recovered.get(id) ?? { status: 'pending', attempts: 0 }).toEqual({ status: node.status, attempts: node.attempts });
        }
      }),
    );
  });

  it('leaves exactly the approvals asked for and not yet answered pending', () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 60 }), (drafts) => {
        const events = stored(drafts);
        const view = foldRunView('r-1', events);
        const expected: string[] = [];
        for (const event of events) {
          if (event.type === 'approval/requested') expected.push(event.payload.toolCallId);
          if (event.type === 'approval/granted' || event.type === 'approval/denied') {
            for (let index = expected.indexOf(event.payload.toolCallId); index >= 0; index = expected.indexOf(event.payload.toolCallId)) expected.splice(index, 1);
          }
        }
        expect(view.approvals.map((approval) => approval.toolCallId)).toEqual(expected);
      }),
    );
  });

  it('never changes a view it was given: the dashboard and status may hold earlier ones', () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 30 }), fc.array(draft, { minLength: 1, maxLength: 10 }), (first, second) => {
        const events = stored([...first, ...second]);
        const before = foldRunView('r-1', events.slice(0, first.length + 2));
        const snapshot = JSON.stringify({ ...before, nodes: [...before.nodes.entries()] });
        let after = before;
        for (const event of events.slice(first.length + 2)) after = reduceRunView(after, event);
        expect(JSON.stringify({ ...before, nodes: [...before.nodes.entries()] })).toBe(snapshot);
        expect(after).toEqual(foldRunView('r-1', events));
      }),
    );
  });

  it('reads only the event types it lists (status queries just those)', () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 40 }), (drafts) => {
        const events = stored(drafts);
        const listed = events.filter((event) => (RUN_VIEW_EVENT_TYPES as readonly string[]).includes(event.type));
        const { lastSeq: _all, lastEventAt: _allAt, ...full } = foldRunView('r-1', events);
        const { lastSeq: _listed, lastEventAt: _listedAt, ...filtered } = foldRunView('r-1', listed);
        expect(filtered).toEqual(full);
        expect(emptyRunView('r-1').nodes.size).toBe(0);
      }),
    );
  });
});
