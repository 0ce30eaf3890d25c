import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { planStages, type Plan } from '../../../engine/index.js';
import { criticalPath } from '../../../engine/plan/critical-path.js';
import { planWidth } from '../../../engine/plan/plan-stages.js';
import { createReachability } from '../../../engine/plan/reachability.js';
import { validatePlan } from '../../../engine/plan/validate-plan.js';
import { writesOverlap } from '../../../engine/plan/writes-overlap.js';
import { node, rawPlan } from './plan-fixtures.js';

/**
 * A random DAG: node i may depend only on nodes with a smaller hidden rank, and the document lists
 * the nodes in a random order, so document order says nothing about dependency order.
 */
const randomDag = fc
  .integer({ min: 1, max: 9 })
  .chain((size) =>
    fc.record({
      size: fc.constant(size),
      edges: fc.array(fc.tuple(fc.nat(size - 1), fc.nat(size - 1)), { maxLength: size * 3 }),
      costs: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: size, maxLength: size }),
      order: fc.shuffledSubarray([...Array(size).keys()], { minLength: size, maxLength: size }),
    }),
  )
  .map(({ size, edges, costs, order }) => {
    const dependsOn = Array.from({ length: size }, () => new Set<string>());
    for (const [a, b] of edges) if (a !== b) dependsOn[Math.max(a, b)]!.add(`n${Math.min(a, b)}`);
    const nodes = order.map((rank) => node(`n${rank}`, 'agent', { dependsOn: [...dependsOn[rank]!], estimate: costs[rank]! }));
    return rawPlan(nodes);
  });

function allPaths(plan: Plan): string[][] {
  const dependents = new Map(plan.nodes.map((n) => [n.id, plan.nodes.filter((m) => m.dependsOn.includes(n.id)).map((m) => m.id)]));
  const paths: string[][] = [];
  const walk = (path: string[]): void => {
    paths.push(path);
    for (const next of dependents.get(path.at(-1)!)!) walk([...path, next]);
  };
  for (const n of plan.nodes) walk([n.id]);
  return paths;
}

describe('plan derivations on random DAGs', () => {
  it('are valid plans', () => {
    fc.assert(
      fc.property(randomDag, (plan) => {
        expect(validatePlan(plan)).toEqual([]);
      }),
    );
  });

  it('stage every node once, each after all its dependencies and right after the latest one', () => {
    fc.assert(
      fc.property(randomDag, (plan) => {
        const stages = planStages(plan);
        const stageOf = new Map(stages.flatMap((stage, index) => stage.map((id) => [id, index] as const)));
        expect(stages.flat().sort()).toEqual(plan.nodes.map((n) => n.id).sort());
        for (const n of plan.nodes) {
          const latest = Math.max(-1, ...n.dependsOn.map((d) => stageOf.get(d)!));
          expect(stageOf.get(n.id)).toBe(latest + 1);
        }
        expect(planWidth(stages)).toBe(Math.max(...stages.map((stage) => stage.length)));
      }),
    );
  });

  it('find a critical path that is a real path and costs at least as much as any other', () => {
    fc.assert(
      fc.property(randomDag, (plan) => {
        const byId = new Map(plan.nodes.map((n) => [n.id, n]));
        const costOf = (path: readonly string[]): number => path.reduce((sum, id) => sum + byId.get(id)!.estimate!, 0);
        const result = criticalPath(plan);
        expect(byId.get(result.nodeIds[0]!)!.dependsOn).toEqual([]);
        for (let i = 1; i < result.nodeIds.length; i++) expect(byId.get(result.nodeIds[i]!)!.dependsOn).toContain(result.nodeIds[i - 1]);
        expect(result.cost).toBe(costOf(result.nodeIds));
        for (const path of allPaths(plan)) expect(result.cost).toBeGreaterThanOrEqual(costOf(path));
      }),
    );
  });

  it('agree with brute force on which nodes a path connects', () => {
    fc.assert(
      fc.property(randomDag, (plan) => {
        const reachability = createReachability(plan);
        const connected = new Set(allPaths(plan).filter((path) => path.length > 1).map((path) => `${path[0]}>${path.at(-1)}`));
        for (const a of plan.nodes) for (const b of plan.nodes) expect(reachability.hasPath(a.id, b.id)).toBe(connected.has(`${a.id}>${b.id}`));
      }),
    );
  });
});

describe('writesOverlap on random patterns', () => {
  const segment = fc.constantFrom('src', 'a', 'b', 'a.ts', 'b.css', '.env', 'x.d.ts');
  const globSegment = fc.constantFrom('src', 'a', '*', '**', '*.ts', '*.css', 'a*', '*.d.ts', '{a,b}', '?.ts');
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
  const pattern = fc.oneof(path, fc.array(globSegment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')));

  it('never calls two patterns disjoint when some path matches both', () => {
    fc.assert(
      fc.property(pattern, pattern, fc.array(path, { minLength: 20, maxLength: 40 }), (a, b, paths) => {
        if (writesOverlap(a, b) !== undefined) return;
        const matchesA = picomatch(a, { dot: true });
        const matchesB = picomatch(b, { dot: true });
        for (const candidate of [...paths, a, b]) expect(matchesA(candidate) && matchesB(candidate)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
