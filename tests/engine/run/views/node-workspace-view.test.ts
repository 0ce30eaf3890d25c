import { describe, expect, it } from 'vitest';
import { foldNodeWorkspace, nodeWorkspaceLabel, nodeWorkspaceLine, type EventDraft, type NodeWorkspaceView, type SessionEvent } from '../../../../engine/index.js';

function events(drafts: readonly EventDraft[]): SessionEvent[] {
  return drafts.map((draft, index) => ({ seq: index + 1, runId: 'r-1', nodeId: 'n', turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: '2026-12-03T10:00:00.000Z' }) as SessionEvent);
}

const opened: EventDraft = { type: 'node/snapshotted', payload: { attempt: 1, boundary: { kind: 'worktree', path: '/w/n-1', start: 'base' } } };
const checkpoint = (changedFiles: number): EventDraft => ({ type: 'step/checkpointed', payload: { attempt: 1, boundary: { kind: 'worktree-step', commit: 'c', changedFiles } } });
const merged: EventDraft = { type: 'node/merged', payload: { commit: 'a1b2c3d4e5f6a7b8', branch: 'dagent/r-1', files: ['a.txt', 'b.txt'], keptYours: [] } };

describe('a node’s workspace state, folded from its events', () => {
  const cases: readonly [string, readonly EventDraft[], Partial<NodeWorkspaceView> | null, string | null][] = [
    ['no workspace before it starts', [], null, null],
    ['none when the run shares the working copy', [{ type: 'node/snapshotted', payload: { attempt: 1, boundary: { files: [] } } }], null, null],
    ['clean when its workspace opens', [opened], { state: 'clean', files: 0 }, 'clean'],
    ['changed as of its last step checkpoint', [opened, checkpoint(1), checkpoint(3)], { state: 'changed', files: 3 }, 'changed 3 files'],
    ['merged with its commit', [opened, checkpoint(2), merged, { type: 'node/succeeded', payload: { result: 'ok' } }], { state: 'merged', files: 2, commit: 'a1b2c3d4e5f6a7b8' }, 'merged 2 files as a1b2c3d4e5f6 on dagent/r-1'],
    ['clean when it succeeded with nothing to merge', [opened, checkpoint(1), { type: 'node/succeeded', payload: { result: 'ok' } }], { state: 'clean', files: 0 }, 'clean'],
    [
      'conflict, naming the files',
      [opened, { type: 'node/conflicted', payload: { branch: 'dagent/r-1', files: [{ path: 'f.txt', hunks: [] }], onConflict: 'replan' } }, { type: 'node/failed', payload: { error: 'merge conflict' } }],
      { state: 'conflict', files: 1, conflicts: ['f.txt'] },
      'conflict in f.txt with dagent/r-1 (not merged)',
    ],
    ['discarded beyond strict writes', [opened, { type: 'workspace/discarded', payload: { files: ['b.txt'], reason: 'overreach' } }], { state: 'discarded', files: 1 }, 'discarded 1 file (beyond its declared writes under strictWrites; not merged)'],
    ['clean again when a new attempt opens one', [opened, { type: 'workspace/discarded', payload: { files: ['b.txt'], reason: 'failed' } }, opened], { state: 'clean', files: 0 }, 'clean'],
    ['forgotten when the node is reset', [opened, merged, { type: 'node/reset', payload: { cause: 'rerun', planVersion: 1, reason: 'rerun', reverted: false } }], null, null],
  ];
  it.each(cases)('%s', (_name, drafts, expected, line) => {
    const workspace = foldNodeWorkspace(events(drafts));
    if (expected === null) expect(workspace).toBeNull();
    else expect(workspace).toMatchObject(expected);
    expect(workspace === null ? null : nodeWorkspaceLine(workspace)).toBe(line);
  });

  it('labels a state in a few words for a status cell', () => {
    expect(nodeWorkspaceLabel({ state: 'conflict', files: 2 })).toBe('conflict in 2 files');
    expect(nodeWorkspaceLabel({ state: 'changed', files: 1 })).toBe('changed 1 file');
  });
});
