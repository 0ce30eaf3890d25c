import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../../engine/scheduler/node-status.js';
import { readyNodes, type ReadyNodesResult } from '../../../engine/scheduler/ready-nodes.js';
import { node } from './schedule-harness.js';

const DIAMOND = [node('a'), node('b', ['a']), node('c', ['a']), node('d', ['b', 'c'])];

const CASES: readonly [string, Record<string, NodeStatus>, ReadyNodesResult][] = [
  ['nothing started: the roots are ready', {}, { ready: ['a'], skip: [], finished: false }],
  ['a running: nothing new', { a: 'running' }, { ready: [], skip: [], finished: false }],
  ['a done: both branches', { a: 'succeeded' }, { ready: ['b', 'c'], skip: [], finished: false }],
  ['one branch done: the join waits', { a: 'succeeded', b: 'succeeded', c: 'running' }, { ready: [], skip: [], finished: false }],
  ['both branches done: the join', { a: 'succeeded', b: 'succeeded', c: 'succeeded' }, { ready: ['d'], skip: [], finished: false }],
  ['all done', { a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' }, { ready: [], skip: [], finished: true }],
  [
    'a failed: everything below is skipped, transitively',
    { a: 'failed' },
    { ready: [], skip: [{ id: 'b', blockedBy: 'a' }, { id: 'c', blockedBy: 'a' }, { id: 'd', blockedBy: 'b' }], finished: true },
  ],
  ['b failed while c runs: d skipped, not finished', { a: 'succeeded', b: 'failed', c: 'running' }, { ready: [], skip: [{ id: 'd', blockedBy: 'b' }], finished: false }],
  ['a cancelled blocks like a failure', { a: 'succeeded', b: 'cancelled', c: 'succeeded' }, { ready: [], skip: [{ id: 'd', blockedBy: 'b' }], finished: true }],
  ['already skipped nodes are not listed again', { a: 'failed', b: 'skipped', c: 'skipped', d: 'skipped' }, { ready: [], skip: [], finished: true }],
  ['a ready node is active', { a: 'ready' }, { ready: [], skip: [], finished: false }],
];

describe('readyNodes', () => {
  it.each(CASES)('%s', (_name, statuses, expected) => {
    expect(readyNodes(DIAMOND, new Map(Object.entries(statuses)))).toEqual(expected);
  });

  it('orders skips by dependency even when the input is not sorted', () => {
    const nodes = [node('d', ['c']), node('c', ['b']), node('b', ['a']), node('a')];
    expect(readyNodes(nodes, new Map([['a', 'failed' as const]])).skip).toEqual([
      { id: 'b', blockedBy: 'a' },
      { id: 'c', blockedBy: 'b' },
      { id: 'd', blockedBy: 'c' },
    ]);
  });

  it('finishes an empty node list at once', () => {
    expect(readyNodes([], new Map())).toEqual({ ready: [], skip: [], finished: true });
  });
});
