import { describe, expect, it } from 'vitest';
import { applyEvents, createDashboardState, moveSelection, plainText, renderScreen, type DashboardState } from '../../dashboard/index.js';
import { emptyRunView, type EventDraft, type SessionEvent } from '../../engine/index.js';

const START = Date.parse('2026-12-07T17:00:00.000Z');

function events(drafts: readonly EventDraft[], from = 0): SessionEvent[] {
  return drafts.map(
    (draft, index) =>
      ({ seq: from + index + 1, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: new Date(START + (from + index) * 1000).toISOString() }) as SessionEvent,
  );
}

const plan = {
  nodes: [
    { id: 'edit-a', kind: 'edit', title: 'Rename greet() in a.js', dependsOn: [] },
    { id: 'edit-b', kind: 'edit', title: 'Call sayHello() in b.js', dependsOn: ['edit-a'] },
  ],
};

/** Both nodes changed their file and the run succeeded. */
const finishedRun = events([
  { type: 'run/created', payload: { task: 'Rename greet() to sayHello()', workspace: '/w', mode: 'plan' } },
  { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
  { type: 'run/started', payload: { planVersion: 1 } },
  { type: 'node/started', nodeId: 'edit-a', payload: { attempt: 1 } },
  { type: 'node/succeeded', nodeId: 'edit-a', payload: { result: 'renamed', filesChanged: ['src/a.js'] } },
  { type: 'node/started', nodeId: 'edit-b', payload: { attempt: 1 } },
  { type: 'node/succeeded', nodeId: 'edit-b', payload: { result: 'updated', filesChanged: ['src/b.js'] } },
  { type: 'run/succeeded', payload: { result: 'done' } },
]);

const revertNodeA: EventDraft = { type: 'revert/finished', payload: { scope: 'node', node: 'edit-a', nodes: ['edit-a'], reverted: ['src/a.js'], unchanged: [], conflicts: [], forced: false } };
const revertRun: EventDraft = { type: 'revert/finished', payload: { scope: 'run', node: null, nodes: ['edit-a', 'edit-b'], reverted: ['src/a.js'], unchanged: [], conflicts: ['src/b.js'], forced: false } };

function screenOf(state: DashboardState): string[] {
  return renderScreen(state, { width: 160, height: 24 }, { color: false, now: START + 60_000 }).lines.map(plainText);
}

function select(state: DashboardState, nodeId: string): DashboardState {
  const order = renderScreen(state, { width: 120, height: 24 }, { color: false, now: START }).rowOrder;
  return moveSelection(state, order, order.indexOf(nodeId) - (state.selected === null ? -1 : order.indexOf(state.selected)));
}

/** The node's row in the list (the left of the screen), not the panel's first line. */
const rowOf = (lines: readonly string[], nodeId: string): string => lines.find((line) => line.startsWith(`✓ ${nodeId} `))!.split('│')[0]!;

describe('the dashboard shows what dagent revert undid', () => {
  const finished = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), finishedRun);

  it('says nothing of a revert before there is one', () => {
    expect(screenOf(finished).join('\n')).not.toContain('reverted');
  });

  it("one node's revert: the header counts it, its row and its panel say reverted, the other node's row does not", () => {
    const state = select(applyEvents(finished, events([revertNodeA], finishedRun.length)), 'edit-a');
    const lines = screenOf(state);

    expect(lines[0]).toContain('dagent r-1 · succeeded · 1 node reverted · plan v1');
    expect(rowOf(lines, 'edit-a')).toContain('↶ reverted Rename greet() in a.js');
    expect(rowOf(lines, 'edit-b')).not.toContain('reverted');
    expect(lines.join('\n')).toMatch(/✓ edit-a · edit · succeeded .* · reverted/);
  });

  it("the whole run's revert, a conflict keeping one file: partly reverted in the header and on every node", () => {
    const lines = screenOf(applyEvents(finished, events([revertRun], finishedRun.length)));

    expect(lines[0]).toContain('dagent r-1 · succeeded · partly reverted · plan v1');
    expect(rowOf(lines, 'edit-a')).toContain('↶ partly reverted Rename greet()');
    expect(rowOf(lines, 'edit-b')).toContain('↶ partly reverted Call sayHello()');
  });
});
