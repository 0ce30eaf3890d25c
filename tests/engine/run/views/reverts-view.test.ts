import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../engine/session/event-types.js';
import { foldReverts, isNodeReverted, revertedState, revertedStateLabel } from '../../../../engine/run/views/reverts-view.js';

let seq = 0;
function event<T extends SessionEvent['type']>(type: T, nodeId: string | null, payload: SessionEvent<T>['payload']): SessionEvent {
  seq += 1;
  return { seq, runId: 'r-1', nodeId, turn: 1, step: 1, type, payload, createdAt: `2026-12-07T17:0${seq % 10}:00.000Z` } as unknown as SessionEvent;
}

const reverted = (scope: 'run' | 'node', node: string | null, nodes: string[], files: string[]): SessionEvent =>
  event('revert/finished', null, { scope, node, nodes, reverted: files, unchanged: [], conflicts: [], forced: false });

describe('which changes are reverted now', () => {
  it('the whole run: every node it undid, until one of them runs again', () => {
    const reverts = foldReverts([reverted('run', null, ['edit-a', 'edit-b'], ['a.js', 'b.js']), event('node/started', 'edit-b', { attempt: 2 }), event('node/started', 'later', { attempt: 1 })]);

    expect(reverts.run).toMatchObject({ reverted: ['a.js', 'b.js'], ranSince: ['edit-b'] });
    expect([isNodeReverted(reverts, 'edit-a'), isNodeReverted(reverts, 'edit-b'), isNodeReverted(reverts, 'later')]).toEqual([true, false, false]);
  });

  it('one node: until it starts again or a rerun resets it; a later whole-run revert takes its place', () => {
    const nodeOnly = foldReverts([reverted('node', 'edit-a', ['edit-a'], ['a.js'])]);
    expect(Object.keys(nodeOnly.nodes)).toEqual(['edit-a']);
    expect(isNodeReverted(nodeOnly, 'edit-a')).toBe(true);

    expect(foldReverts([reverted('node', 'edit-a', ['edit-a'], ['a.js']), event('node/reset', 'edit-a', { cause: 'rerun', planVersion: 2, reason: 'rerun', reverted: true })]).nodes).toEqual({});
    const thenRun = foldReverts([reverted('node', 'edit-a', ['edit-a'], ['a.js']), reverted('run', null, ['edit-a', 'edit-b'], ['b.js'])]);
    expect([thenRun.nodes, thenRun.run?.reverted]).toEqual([{}, ['b.js']]);
  });
});

describe('the run in a word: reverted, partly, or some nodes', () => {
  const conflicted = (files: string[], conflicts: string[]): SessionEvent =>
    event('revert/finished', null, { scope: 'run', node: null, nodes: ['edit-a', 'edit-b'], reverted: files, unchanged: [], conflicts, forced: false });

  it.each<[string, SessionEvent[], string | undefined]>([
    ['nothing undone', [], undefined],
    ['the whole run', [reverted('run', null, ['edit-a', 'edit-b'], ['a.js', 'b.js'])], 'reverted'],
    ['the whole run, a conflict keeping one file', [conflicted(['a.js'], ['b.js'])], 'partly reverted'],
    ['one node', [reverted('node', 'edit-a', ['edit-a'], ['a.js'])], '1 node reverted'],
    ['a revert that left every file for a conflict undid nothing', [conflicted([], ['a.js', 'b.js'])], undefined],
    ['the whole run, then one node ran again', [reverted('run', null, ['edit-a', 'edit-b'], ['a.js', 'b.js']), event('node/started', 'edit-b', { attempt: 2 })], '1 node reverted'],
    ['the whole run, then every node ran again', [reverted('run', null, ['edit-a'], ['a.js']), event('node/started', 'edit-a', { attempt: 2 })], undefined],
    ['one node, then it ran again', [reverted('node', 'edit-a', ['edit-a'], ['a.js']), event('node/started', 'edit-a', { attempt: 2 })], undefined],
  ])('%s', (_name, events, label) => {
    const state = revertedState(foldReverts(events));
    expect(state === undefined ? undefined : revertedStateLabel(state)).toBe(label);
  });

  it('names the nodes undone now and the files a conflict kept', () => {
    expect(revertedState(foldReverts([conflicted(['a.js'], ['b.js'])]))).toEqual({ scope: 'run', nodes: ['edit-a', 'edit-b'], conflicts: ['b.js'] });
    expect(revertedState(foldReverts([reverted('run', null, ['edit-a', 'edit-b'], ['a.js', 'b.js']), event('node/started', 'edit-b', { attempt: 2 })]))).toEqual({ scope: 'nodes', nodes: ['edit-a'], conflicts: [] });
  });
});
