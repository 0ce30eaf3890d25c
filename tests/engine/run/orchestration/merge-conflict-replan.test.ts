import { describe, expect, it } from 'vitest';
import { conflictPauseLine, conflictReplanError, conflictResolutionNode, type NodeConflict } from '../../../../engine/run/orchestration/merge-conflict-replan.js';
import { node } from '../../plan/plan-fixtures.js';

const CONFLICT: NodeConflict = { branch: 'dagent/r-1', onConflict: 'replan', files: [{ path: 'f.txt', hunks: [{ line: 2, ours: 'line two', theirs: 'LINE 2' }] }] };

describe('a merge conflict, for the replan and the user', () => {
  it('tells the replan both sides of each hunk and what the appended node must do', () => {
    const error = conflictReplanError('bottom', CONFLICT);
    expect(error.split('\n')[0]).toBe('merge conflict: node bottom ran in its own workspace and its change touches the same lines as changes merged before it on dagent/r-1; its change was not merged.');
    expect(error).toContain('f.txt:\n  at line 2, run has:\n    | line two\n  node has:\n    | LINE 2');
  });

  it('without a planner, an edit node is told its instruction and the hunks, and waits for the nodes that changed the file', () => {
    const failed = node('bottom', 'edit', { instructions: 'Upper-case line 2', writes: [], dependsOn: ['read'] });
    const resolver = conflictResolutionNode(failed, CONFLICT, [{ nodeId: 'top', result: 'done', filesChanged: ['f.txt'] }, { nodeId: 'other', result: 'done', filesChanged: ['g.txt'] }]);
    expect(resolver).toMatchObject({ id: 'resolve-bottom', kind: 'edit', writes: ['f.txt'], reads: ['f.txt'], dependsOn: ['read', 'top'] });
    expect(resolver.instructions).toContain('Upper-case line 2');
    expect(resolver.instructions).toContain('    | LINE 2');
  });

  it('without a planner, a command node runs its command again on the merged result', () => {
    const failed = node('bottom', 'command', { command: "sed -i 's/2/II/' f.txt", writes: [] });
    expect(conflictResolutionNode(failed, CONFLICT, [])).toMatchObject({ id: 'bottom-remerge', kind: 'command', command: "sed -i 's/2/II/' f.txt" });
  });

  it('pauses with one line naming the file, its lines and how to go on', () => {
    expect(conflictPauseLine('r-1', 'bottom', CONFLICT)).toBe(
      "paused: bottom's change conflicts with changes merged before it (f.txt line 2; `dagent log r-1 --type node/conflicted` shows both sides); `dagent resume r-1` runs bottom again on the merged result",
    );
  });
});
