import { describe, expect, it } from 'vitest';
import { IllegalNodeTransitionError, NODE_STATUSES, resumeStatus, transitionNode, type NodeStatus } from '../../../engine/scheduler/node-status.js';

const LEGAL: readonly [NodeStatus, NodeStatus, string][] = [
  ['pending', 'ready', 'the last dependency succeeded'],
  ['pending', 'skipped', 'a dependency failed'],
  ['ready', 'running', 'a slot and the write locks were free'],
  ['ready', 'pending', 'an amendment added an unfinished dependency'],
  ['ready', 'cancelled', 'the run was cancelled before it started'],
  ['running', 'succeeded', 'the attempt succeeded'],
  ['running', 'failed', 'the last attempt failed'],
  ['running', 'ready', 'a retry after backoff'],
  ['running', 'cancelled', 'the run was cancelled'],
  ['running', 'pending', 'resume after a crash'],
  ['failed', 'pending', 'resume or restart'],
  ['skipped', 'pending', 'resume, or its blocker was replaced'],
  ['cancelled', 'pending', 'resume'],
];

describe('transitionNode', () => {
  it.each(LEGAL)('%s → %s is legal (%s)', (from, to) => {
    expect(transitionNode(from, to)).toBe(to);
  });

  const legal = new Set(LEGAL.map(([from, to]) => `${from}>${to}`));
  const illegal = NODE_STATUSES.flatMap((from) => NODE_STATUSES.map((to) => [from, to] as const)).filter(([from, to]) => !legal.has(`${from}>${to}`));

  it.each(illegal)('%s → %s is refused', (from, to) => {
    expect(() => transitionNode(from, to, 'edit-a')).toThrow(IllegalNodeTransitionError);
  });

  it('names the node and both statuses', () => {
    expect(() => transitionNode('succeeded', 'running', 'edit-a')).toThrow('node "edit-a" that is succeeded cannot become running');
  });
});

describe('resumeStatus', () => {
  it.each<[NodeStatus, NodeStatus]>([
    ['succeeded', 'succeeded'],
    ['running', 'pending'],
    ['ready', 'pending'],
    ['failed', 'pending'],
    ['cancelled', 'pending'],
    ['skipped', 'pending'],
    ['pending', 'pending'],
  ])('%s resumes as %s', (status, expected) => {
    expect(resumeStatus(status)).toBe(expected);
  });
});
