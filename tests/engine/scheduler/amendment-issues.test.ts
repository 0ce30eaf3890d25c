import { describe, expect, it } from 'vitest';
import { amendmentIssues } from '../../../engine/scheduler/amendment-issues.js';
import type { NodeStatus } from '../../../engine/scheduler/node-status.js';
import type { Amendment } from '../../../engine/scheduler/schedule-options.js';
import { node } from './schedule-harness.js';

const CURRENT: { node: ReturnType<typeof node>; status: NodeStatus }[] = [
  { node: node('done', [], ['src/a.ts']), status: 'succeeded' },
  { node: node('busy', ['done'], ['src/b.ts']), status: 'running' },
  { node: node('broken', ['done']), status: 'failed' },
  { node: node('waiting', ['busy']), status: 'pending' },
];

describe('amendmentIssues', () => {
  it.each<[string, Amendment, string[]]>([
    ['append and rewire a pending node', { nodes: [...CURRENT.map((c) => c.node).filter((n) => n.id !== 'waiting'), node('extra', ['done']), node('waiting', ['busy', 'extra'])] }, []],
    ['remove a failed node', { nodes: CURRENT.map((c) => c.node).filter((n) => n.id !== 'broken') }, []],
    ['remove a succeeded node', { nodes: CURRENT.map((c) => c.node).filter((n) => n.id !== 'done') }, ['node "done" is succeeded and cannot be removed']],
    ['rewire a running node', { nodes: CURRENT.map((c) => (c.node.id === 'busy' ? node('busy', [], ['src/b.ts']) : c.node)) }, ['node "busy" is running: its dependencies cannot change']],
    ['change what a succeeded node writes', { nodes: CURRENT.map((c) => (c.node.id === 'done' ? node('done', [], ['src/*.ts']) : c.node)) }, ['node "done" is succeeded: its writes cannot change']],
    ['restart a failed node', { nodes: CURRENT.map((c) => c.node), restart: ['broken'] }, []],
    ['restart a pending node', { nodes: CURRENT.map((c) => c.node), restart: ['waiting'] }, ['cannot restart "waiting": it is pending, not failed, cancelled or skipped']],
    ['restart a removed node', { nodes: CURRENT.map((c) => c.node).filter((n) => n.id !== 'broken'), restart: ['broken'] }, ['cannot restart "broken": it is not in the amended nodes']],
  ])('%s', (_name, amendment, expected) => {
    expect(amendmentIssues(CURRENT, amendment)).toEqual(expected);
  });
});
