import type { Plan, PlanNode, PlanNodeKind } from '../../../engine/index.js';
import { parsePlan } from '../../../engine/plan/check-plan.js';

/** A node with the defaults the schema fills in, overridden by `fields`. */
export function node(id: string, kind: PlanNodeKind, fields: Partial<PlanNode> = {}): PlanNode {
  return { id, kind, title: `${kind} ${id}`, instructions: '', reads: [], writes: [], dependsOn: [], ...fields };
}

/** A plan that skips validation, for feeding broken plans to the checks. */
export function rawPlan(nodes: readonly PlanNode[], goal = 'Rename Shape.area() to Shape.getArea()'): Plan {
  return { goal, rationale: '', nodes };
}

/**
 * The canonical refactor shape of SPEC §2.1: A defines an interface, B and C implement it, D
 * uses B's output. read A,B,C,D (parallel) → edit A → edit B ‖ edit C → edit D (after B) → tests.
 */
export function refactorPlan(): Plan {
  return parsePlan({
    goal: 'Rename Shape.area() to Shape.getArea() and keep the tests green',
    rationale: 'A declares the interface; B and C implement it; D calls B.',
    nodes: [
      { id: 'read-a', kind: 'read', title: 'Read A', reads: ['src/a.ts'] },
      { id: 'read-b', kind: 'read', title: 'Read B', reads: ['src/b.ts'] },
      { id: 'read-c', kind: 'read', title: 'Read C', reads: ['src/c.ts'] },
      { id: 'read-d', kind: 'read', title: 'Read D', reads: ['src/d.ts'] },
      { id: 'edit-a', kind: 'edit', title: 'Change the interface in A', reads: ['src/a.ts'], writes: ['src/a.ts'], dependsOn: ['read-a', 'read-b', 'read-c', 'read-d'] },
      { id: 'edit-b', kind: 'edit', title: 'Implement it in B', writes: ['src/b.ts'], dependsOn: ['edit-a'] },
      { id: 'edit-c', kind: 'edit', title: 'Implement it in C', writes: ['src/c.ts'], dependsOn: ['edit-a'] },
      { id: 'edit-d', kind: 'edit', title: 'Call the new method in D', writes: ['src/d.ts'], dependsOn: ['edit-b'] },
      { id: 'test', kind: 'command', title: 'Run the tests', command: 'npm test', dependsOn: ['edit-c', 'edit-d'] },
    ],
  });
}
