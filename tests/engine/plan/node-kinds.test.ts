import { describe, expect, it } from 'vitest';
import { NODE_KINDS, PLAN_NODE_KINDS, isEditingNode, nodeSubject, type PlanNodeKind } from '../../../engine/plan/index.js';

describe('the node kinds table', () => {
  it('has an entry for every kind of the plan schema', () => {
    expect(Object.keys(NODE_KINDS).sort()).toEqual([...PLAN_NODE_KINDS].sort());
  });

  it.each<[PlanNodeKind, readonly string[], boolean]>([
    ['edit', [], true],
    ['agent', ['src/a.ts'], true],
    ['agent', [], false],
    ['read', [], false],
    ['command', ['dist/**'], false],
  ])('a %s node writing %j edits: %s', (kind, writes, editing) => {
    expect(isEditingNode({ kind, writes })).toBe(editing);
  });

  it('shows a command node by its command and other nodes by their files', () => {
    expect(nodeSubject({ kind: 'command', command: 'npm test', reads: [], writes: [] })).toEqual({ shows: 'command', command: 'npm test' });
    expect(nodeSubject({ kind: 'edit', reads: ['a.ts'], writes: ['b.ts'] })).toEqual({ shows: 'writes', files: ['b.ts'] });
    expect(nodeSubject({ kind: 'read', reads: ['a.ts'], writes: [] })).toEqual({ shows: 'reads', files: ['a.ts'] });
  });

  it('runs a model for every kind but command, which alone needs a command', () => {
    const table = PLAN_NODE_KINDS.map((kind) => [kind, NODE_KINDS[kind].runsModel, NODE_KINDS[kind].needsCommand]);
    expect(table).toEqual([
      ['read', true, false],
      ['edit', true, false],
      ['command', false, true],
      ['agent', true, false],
    ]);
  });
});
