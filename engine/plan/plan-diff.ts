import { canonicalJson } from '../canonical-json.js';
import { nodesById, planEdges, type PlanEdge } from './plan-graph.js';
import type { Plan, PlanNode } from './plan-schema.js';

/** One field of a node (or of the plan) that differs between two versions. */
export interface FieldChange<Field extends string = string> {
  readonly field: Field;
  /** Undefined when the field was absent. */
  readonly before: unknown;
  readonly after: unknown;
}

export type PlanNodeField = Exclude<keyof PlanNode, 'id' | 'dependsOn'>;

export type PlanField = Exclude<keyof Plan, 'nodes'>;

export interface PlanDiff {
  /** The plan's own fields (`goal`, `rationale`, `strictWrites`), when they changed. */
  readonly planChanges: readonly FieldChange<PlanField>[];
  readonly addedNodes: readonly PlanNode[];
  readonly removedNodes: readonly PlanNode[];
  /** Nodes kept by id whose fields changed; dependencies show as edges instead. */
  readonly changedNodes: readonly { readonly id: string; readonly changes: readonly FieldChange<PlanNodeField>[] }[];
  readonly addedEdges: readonly PlanEdge[];
  readonly removedEdges: readonly PlanEdge[];
}

/**
 * Every field a diff compares, in the order it lists them. Written as a record of the field type, so a field
 * added to `PlanNode` or `Plan` does not compile until it is listed here: a plan whose only change
 * is a field missing from the list would read as no change at all.
 */
const NODE_FIELDS = fieldsOf<PlanNodeField>({ kind: true, title: true, instructions: true, reads: true, writes: true, command: true, tools: true, model: true, fallbackModels: true, role: true, maxSteps: true, budget: true, estimate: true, simple: true, changes: true, strictWrites: true });
const PLAN_FIELDS = fieldsOf<PlanField>({ goal: true, rationale: true, strictWrites: true });

/**
 * What changed from one plan version to the next, matching nodes by id. Lists follow the
 * documents' order: added and changed nodes and added edges in `next`'s, removed ones in
 * `previous`'s. A change of node order alone is no change.
 */
export function diffPlans(previous: Plan, next: Plan): PlanDiff {
  const before = nodesById(previous);
  const after = nodesById(next);
  const planChanges = PLAN_FIELDS.flatMap((field) => (same(previous[field], next[field]) ? [] : [{ field, before: previous[field], after: next[field] }]));
  const changedNodes = [...after.values()].flatMap((node) => {
    const old = before.get(node.id);
    if (old === undefined) return [];
    const changes = NODE_FIELDS.flatMap((field) => (same(old[field], node[field]) ? [] : [{ field, before: old[field], after: node[field] }]));
    return changes.length === 0 ? [] : [{ id: node.id, changes }];
  });
  const edgeKey = (edge: PlanEdge): string => `${edge.from}\u0000${edge.to}`;
  const edgesBefore = planEdges(previous);
  const edgesAfter = planEdges(next);
  const keysBefore = new Set(edgesBefore.map(edgeKey));
  const keysAfter = new Set(edgesAfter.map(edgeKey));
  return {
    planChanges,
    addedNodes: [...after.values()].filter((node) => !before.has(node.id)),
    removedNodes: [...before.values()].filter((node) => !after.has(node.id)),
    changedNodes,
    addedEdges: edgesAfter.filter((edge) => !keysBefore.has(edgeKey(edge))),
    removedEdges: edgesBefore.filter((edge) => !keysAfter.has(edgeKey(edge))),
  };
}

export function isEmptyPlanDiff(diff: PlanDiff): boolean {
  return (
    diff.planChanges.length === 0 &&
    diff.addedNodes.length === 0 &&
    diff.removedNodes.length === 0 &&
    diff.changedNodes.length === 0 &&
    diff.addedEdges.length === 0 &&
    diff.removedEdges.length === 0
  );
}

/** The keys of an object that must name every field of the type, in the order written. */
function fieldsOf<Field extends string>(fields: Record<Field, true>): readonly Field[] {
  return Object.keys(fields) as Field[];
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}
