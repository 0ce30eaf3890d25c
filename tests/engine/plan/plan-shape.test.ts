import { describe, expect, it } from 'vitest';
import { analyzePlan, planStages } from '../../../engine/index.js';
import { criticalPath } from '../../../engine/plan/critical-path.js';
import { GraphCycleError } from '../../../engine/plan/plan-errors.js';
import { planGraph } from '../../../engine/plan/plan-graph.js';
import { planWidth } from '../../../engine/plan/plan-stages.js';
import { createReachability } from '../../../engine/plan/reachability.js';
import { node, rawPlan, refactorPlan } from './plan-fixtures.js';

describe('the canonical refactor shape', () => {
  const plan = refactorPlan();

  it('runs in five stages: the reads together, then A, then B and C together, then D, then the tests', () => {
    expect(planStages(plan)).toEqual([['read-a', 'read-b', 'read-c', 'read-d'], ['edit-a'], ['edit-b', 'edit-c'], ['edit-d'], ['test']]);
  });

  it('is four wide', () => {
    expect(planWidth(planStages(plan))).toBe(4);
  });

  it('has its critical path through B and D, ties going to the earlier node', () => {
    expect(criticalPath(plan)).toEqual({ nodeIds: ['read-a', 'edit-a', 'edit-b', 'edit-d', 'test'], cost: 4_000 + 3 * 12_000 + 1_000 });
  });

  it('weighs the critical path by estimates and per-kind defaults', () => {
    const heavyC = { ...plan, nodes: plan.nodes.map((n) => (n.id === 'edit-c' ? { ...n, estimate: 50_000 } : n)) };
    expect(criticalPath(heavyC).nodeIds).toEqual(['read-a', 'edit-a', 'edit-c', 'test']);
    expect(criticalPath(plan, { defaultCosts: { read: 1, edit: 1, command: 1 } })).toEqual({ nodeIds: ['read-a', 'edit-a', 'edit-b', 'edit-d', 'test'], cost: 5 });
    expect(criticalPath(plan, { costOf: (n) => (n.id === 'read-d' ? 100 : 1) }).nodeIds[0]).toBe('read-d');
  });

  it('keeps a zero-cost final node on the critical path', () => {
    expect(criticalPath(plan, { costOf: (n) => (n.kind === 'command' ? 0 : 1) }).nodeIds.at(-1)).toBe('test');
  });

  it('knows which nodes are ordered', () => {
    const reachability = createReachability(plan);
    expect(reachability.hasPath('read-d', 'edit-d')).toBe(true);
    expect(reachability.hasPath('edit-d', 'read-d')).toBe(false);
    expect(reachability.areOrdered('edit-b', 'edit-c')).toBe(false);
    expect(reachability.areOrdered('edit-d', 'edit-b')).toBe(true);
    expect(reachability.hasPath('test', 'test')).toBe(false);
    expect([...reachability.descendants('edit-b')].sort()).toEqual(['edit-d', 'test']);
  });

  it('builds a graph with an edge from each dependency to its dependent', () => {
    const graph = planGraph(plan);
    expect(graph.order).toBe(9);
    expect(graph.size).toBe(9);
    expect(graph.hasDirectedEdge('edit-b', 'edit-d')).toBe(true);
    expect(graph.getNodeAttribute('edit-d', 'node').title).toBe('Call the new method in D');
  });

  it('is analysed in one call for review', () => {
    const analysis = analyzePlan(plan);
    expect(analysis).toMatchObject({ width: 4, criticalPath: ['read-a', 'edit-a', 'edit-b', 'edit-d', 'test'], estimate: null, lint: [] });
    expect(analysis.stages).toHaveLength(5);
  });
});

describe('planStages on a cycle', () => {
  it('throws GraphCycleError naming the cycle', () => {
    const plan = rawPlan([node('a', 'edit', { dependsOn: ['c'] }), node('b', 'edit', { dependsOn: ['a'] }), node('c', 'edit', { dependsOn: ['b'] })]);
    expect(() => planStages(plan)).toThrow(GraphCycleError);
    try {
      planStages(plan);
    } catch (error) {
      expect((error as GraphCycleError).cycle).toEqual(['a', 'b', 'c', 'a']);
      expect((error as GraphCycleError).message).toBe('the plan has a dependency cycle a → b → c → a: remove one of these dependencies');
    }
  });
});
