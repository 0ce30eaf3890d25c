import { describe, expect, it } from 'vitest';
import { applyEvents, createDashboardState, moveSelection, plainText, renderScreen, togglePanel, type DashboardState } from '../../dashboard/index.js';
import { emptyRunView, type EventDraft, type SessionEvent } from '../../engine/index.js';

const START = Date.parse('2026-12-03T10:00:00.000Z');
const COMMIT = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

function events(drafts: readonly EventDraft[]): SessionEvent[] {
  return drafts.map(
    (draft, index) =>
      ({ seq: index + 1, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: new Date(START + index * 1000).toISOString() }) as SessionEvent,
  );
}

const plan = {
  nodes: [
    { id: 'edit-top', kind: 'edit', title: 'Change the first line', dependsOn: [] },
    { id: 'edit-bottom', kind: 'edit', title: 'Change the last line', dependsOn: [] },
    { id: 'edit-middle', kind: 'edit', title: 'Change the middle', dependsOn: [] },
    { id: 'cmd-junk', kind: 'command', title: 'Make junk and fail', dependsOn: [] },
    { id: 'test', kind: 'command', title: 'Run the tests', dependsOn: ['edit-top', 'edit-bottom', 'edit-middle'] },
  ],
};
const worktree = (node: string) => ({ kind: 'worktree', path: `/w/.dagent/worktrees/r-1/${node}-1`, start: 'base' });

/** Four isolated nodes side by side: one merged, one in conflict, one still changing files, one dropped. */
const isolatedRun = events([
  { type: 'run/created', payload: { task: 'Edit one file in three places', workspace: '/w', mode: 'plan' } },
  { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
  { type: 'run/started', payload: { planVersion: 1 } },
  ...['edit-top', 'edit-bottom', 'edit-middle', 'cmd-junk'].flatMap((node): EventDraft[] => [
    { type: 'node/started', nodeId: node, payload: { attempt: 1 } },
    { type: 'node/snapshotted', nodeId: node, payload: { attempt: 1, boundary: worktree(node) } },
  ]),
  { type: 'step/checkpointed', nodeId: 'edit-top', payload: { attempt: 1, boundary: { kind: 'worktree-step', commit: 'c1', changedFiles: 1 } } },
  { type: 'node/merged', nodeId: 'edit-top', payload: { commit: COMMIT, branch: 'dagent/r-1', files: ['f.txt'], keptYours: [] } },
  { type: 'node/succeeded', nodeId: 'edit-top', payload: { result: 'changed line 1', filesChanged: ['f.txt'] } },
  { type: 'node/conflicted', nodeId: 'edit-bottom', payload: { branch: 'dagent/r-1', files: [{ path: 'f.txt', hunks: [{ line: 2, ours: 'one', theirs: 'two' }] }], onConflict: 'replan' } },
  { type: 'node/failed', nodeId: 'edit-bottom', payload: { error: 'merge conflict: node edit-bottom changed the same lines' } },
  { type: 'step/checkpointed', nodeId: 'edit-middle', payload: { attempt: 1, boundary: { kind: 'worktree-step', commit: 'c2', changedFiles: 3 } } },
  { type: 'workspace/discarded', nodeId: 'cmd-junk', payload: { files: ['junk.txt', 'more.txt'], reason: 'failed' } },
  { type: 'node/failed', nodeId: 'cmd-junk', payload: { error: 'exit 1' } },
]);

function screenOf(state: DashboardState, width = 160, height = 30): string {
  return renderScreen(state, { width, height }, { color: false, now: START + 30_000 }).lines.map(plainText).join('\n');
}

function select(state: DashboardState, nodeId: string): DashboardState {
  const order = renderScreen(state, { width: 120, height: 30 }, { color: false, now: START }).rowOrder;
  return moveSelection(state, order, order.indexOf(nodeId) - (state.selected === null ? -1 : order.indexOf(state.selected)));
}

describe('the dashboard shows each node’s own workspace', () => {
  const state = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), isolatedRun);

  it('in the node list: merged, conflict, changed so far, dropped; blank for a node not started', () => {
    const screen = screenOf(state);
    expect(screen).toMatch(/edit-top .*merged 1 /);
    expect(screen).toMatch(/edit-bottom .*conflict 1 /);
    expect(screen).toMatch(/edit-middle .*changed 3 /);
    expect(screen).toMatch(/cmd-junk .*dropped 2 /);
    expect(screen).toMatch(/· test +command +⟵ edit-bottom,edit-middle/);
  });

  it('in the selected node’s panel, and its details name the commit on the run branch', () => {
    const top = select(state, 'edit-top');
    expect(screenOf(top)).toMatch(/✓ edit-top · edit · succeeded .* · merged 1 file/);
    expect(screenOf(togglePanel(top, 'details'))).toContain('workspace:  merged 1 file as a1b2c3d4e5f6 on dagent/r-1');
    expect(screenOf(togglePanel(select(state, 'edit-bottom'), 'details'))).toContain('workspace:  conflict in f.txt with dagent/r-1 (not merged)');
    expect(screenOf(togglePanel(select(state, 'cmd-junk'), 'details'))).toContain('workspace:  discarded 2 files (the node failed; not merged)');
  });

  it('leaves the list as it was for a run whose nodes share the working copy', () => {
    const shared = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), isolatedRun.filter((event) => !['node/snapshotted', 'step/checkpointed', 'node/merged', 'node/conflicted', 'workspace/discarded'].includes(event.type)));
    expect(screenOf(shared)).not.toMatch(/merged|conflict \d|changed \d|dropped|clean/);
  });
});

describe('the node list fits the terminal it is on', () => {
  const longId = 'rename-area-in-the-shape-interface';
  const teamPlan = {
    nodes: [
      { id: 'lead', kind: 'agent', title: 'Lead the team', dependsOn: [] },
      { id: longId, kind: 'edit', title: 'Rename area() to getArea() in the Shape interface and the Square class', dependsOn: [] },
      { id: 'edit-circle', kind: 'edit', title: 'Rename in circle.ts', dependsOn: [longId, 'lead'] },
    ],
  };
  const teamRun = events([
    { type: 'run/created', payload: { task: 'Rename area() to getArea() everywhere', workspace: '/w', mode: 'team' } },
    { type: 'plan/created', payload: { version: 1, plan: teamPlan, hash: 'h1' } },
    { type: 'run/started', payload: { planVersion: 1 } },
    ...['lead', longId].flatMap((node): EventDraft[] => [
      { type: 'node/started', nodeId: node, payload: { attempt: 1 } },
      { type: 'node/snapshotted', nodeId: node, payload: { attempt: 1, boundary: worktree(node) } },
    ]),
    { type: 'node/merged', nodeId: longId, payload: { commit: COMMIT, branch: 'dagent/r-1', files: ['src/shape.ts'], keptYours: [] } },
    { type: 'node/succeeded', nodeId: longId, payload: { result: 'renamed', filesChanged: ['src/shape.ts'] } },
  ]);
  const state = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), teamRun);
  const listRows = (width: number, height: number): string[] =>
    screenOf(state, width, height)
      .split('\n')
      .map((line) => line.split('│')[0]!)
      .filter((line) => /^[·○▶✓✗■?‖-] /.test(line));

  it('on 80×24, shows each workspace state whole instead of cutting it (and the title) to a lone …', () => {
    const rows = listRows(80, 24);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row, row).not.toMatch(/(^|\s)\S?…/);
    expect(rows.find((row) => row.startsWith('✓'))).toMatch(/merged 1/);
    expect(rows.find((row) => row.startsWith('▶ lead'))).toMatch(/clean/);
    expect(rows.find((row) => row.includes('edit-circle'))).toMatch(/⟵ lead/);
  });

  it('on a wide terminal, shows a long id whole beside its kind, workspace and title', () => {
    const row = listRows(200, 50).find((line) => line.startsWith('✓'))!;
    expect(row).toMatch(new RegExp(`✓ ${longId} +edit +0:\\d\\d .*merged 1 +Rename area\\(\\) to getArea\\(\\)`));
  });
});
