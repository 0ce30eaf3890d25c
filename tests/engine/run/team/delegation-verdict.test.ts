import { describe, expect, it } from 'vitest';
import { DEFAULT_TEAM_LIMITS, delegationVerdict, type SessionEvent } from '../../../../engine/index.js';
import type { PlanNode } from '../../../../engine/index.js';

const lead: PlanNode = { id: 'lead', kind: 'agent', title: 'Lead', instructions: 'lead', reads: [], writes: [], dependsOn: [] };
const member = (id: string): PlanNode => ({ id, kind: 'edit', title: id, instructions: id, reads: [], writes: [`src/${id}.ts`], dependsOn: [] });

function delegation(id: string, options: { by?: string; dependsOn?: string[] } = {}): SessionEvent<'work/delegated'> {
  return {
    seq: 10,
    runId: 'r-1',
    nodeId: options.by ?? 'lead',
    turn: 0,
    step: 1,
    type: 'work/delegated',
    payload: { id, title: id, instructions: `do ${id}`, kind: 'edit', reads: [], writes: [`src/${id}.ts`], dependsOn: options.dependsOn ?? [] },
    createdAt: '2026-12-03T00:00:00.000Z',
  };
}

const state = (delegated: Record<string, string>, statuses: Record<string, 'running' | 'succeeded'> = {}, limits = DEFAULT_TEAM_LIMITS) => ({
  nodes: [lead, ...Object.keys(delegated).map(member)],
  statuses: new Map(Object.entries(statuses)),
  delegatedBy: new Map(Object.entries(delegated)),
  limits,
});

describe('the verdict on one delegation', () => {
  it('adds a node that may wait for nodes delegated before it', () => {
    const verdict = delegationVerdict(delegation('c', { dependsOn: ['a'] }), state({ a: 'lead' }, { a: 'succeeded' }));
    expect(verdict).toEqual({ kind: 'add', depth: 1, node: { id: 'c', kind: 'edit', title: 'c', instructions: 'do c', reads: [], writes: ['src/c.ts'], dependsOn: ['a'] } });
  });

  it.each([
    ['waits for the lead', delegation('c', { dependsOn: ['lead'] }), state({}), 'dependsOn "lead": a delegated node may depend only on nodes delegated before it'],
    ['reuses an id', delegation('lead'), state({}), 'node "lead" is already in the plan: pick another id'],
    ['comes from a delegated node at maxDepth 1', delegation('c', { by: 'a' }), state({ a: 'lead' }), 'refused by team.maxDepth (1): node "a" was itself delegated, so it may not delegate; raise team.maxDepth in the config to allow it'],
    ['is one node too many', delegation('c'), state({ a: 'lead', b: 'lead' }, { a: 'succeeded', b: 'succeeded' }, { ...DEFAULT_TEAM_LIMITS, maxNodes: 2 }), 'refused by team.maxNodes (2): this run already has 2 delegated nodes; finish with them, or raise team.maxNodes in the config'],
    ['is one node too wide', delegation('c'), state({ a: 'lead', b: 'lead' }, { a: 'running' }, { ...DEFAULT_TEAM_LIMITS, maxWidth: 2 }), 'refused by team.maxWidth (2): 2 delegated nodes have not ended (a, b); await_nodes some of them first, or raise team.maxWidth in the config'],
  ])('refuses a delegation that %s', (_what, event, given, reason) => {
    expect(delegationVerdict(event, given)).toEqual({ kind: 'refuse', reason });
  });

  it('answers a delegation repeated after a resume with the node it already added', () => {
    expect(delegationVerdict(delegation('a'), state({ a: 'lead' }, { a: 'succeeded' }))).toEqual({ kind: 'present' });
  });

  it('lets a delegated node delegate when maxDepth allows it', () => {
    const verdict = delegationVerdict(delegation('c', { by: 'a' }), state({ a: 'lead' }, {}, { ...DEFAULT_TEAM_LIMITS, maxDepth: 2 }));
    expect(verdict).toMatchObject({ kind: 'add', depth: 2 });
  });
});
