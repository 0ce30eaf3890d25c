import { amendPlan } from '../../plan/amend-plan.js';
import { parsePlan } from '../../plan/check-plan.js';
import type { PlanRules } from '../../plan/plan-rules.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import type { PlanPatch, ReplanTrigger } from '../../plan/planner.js';

export interface PatchContext {
  /** Nodes that succeeded or are running now: a replan never changes them. */
  readonly frozenNodeIds: ReadonlySet<string>;
  readonly completedNodeIds: ReadonlySet<string>;
  /** The rules the next plan is checked by (the run's isolation); default: nodes share the working copy. */
  readonly rules?: PlanRules | undefined;
}

/**
 * The next plan version from a planner's patch (SPEC §2.5), pure:
 * - append after missed work: the new nodes are appended and whatever waited for the reporting
 *   node now also waits for them;
 * - append after a failure: the same, and the failed node leaves the plan (the new nodes do its
 *   work; its attempts stay in the log), so its dependents wait for the new nodes instead;
 * - replace: the planner's whole new plan, with every frozen node kept exactly as it was.
 */
export function applyPlanPatch(plan: Plan, patch: PlanPatch, trigger: ReplanTrigger, context: PatchContext): Plan {
  if (patch.kind === 'replace') return keepFrozen(plan, patch.plan, context.frozenNodeIds, context.rules);
  const taken = new Set(plan.nodes.map((node) => node.id));
  const newNodes = patch.nodes.map((node) => ({ ...node, id: uniqueId(node.id, taken) }));
  if (trigger.kind === 'missed-work') {
    return amendPlan(plan, { newNodes, affectedNodeId: trigger.nodeId, completedNodeIds: context.completedNodeIds, rules: context.rules }).plan;
  }
  return replaceFailedNode(plan, trigger.nodeId, newNodes, context.rules);
}

/**
 * The failed node leaves the plan; the new nodes inherit its dependencies, and every node that
 * waited for it waits for the new nodes (their sinks) instead.
 */
function replaceFailedNode(plan: Plan, failedId: string, newNodes: readonly PlanNode[], rules: PlanRules | undefined): Plan {
  const failed = plan.nodes.find((node) => node.id === failedId);
  const inherited = failed?.dependsOn ?? [];
  const rooted = newNodes.map((node) => ({ ...node, dependsOn: withoutId(node.dependsOn, failedId, inherited) }));
  const dependedOn = new Set(rooted.flatMap((node) => node.dependsOn));
  const sinks = rooted.map((node) => node.id).filter((id) => !dependedOn.has(id));
  const nodes = plan.nodes.filter((node) => node.id !== failedId).map((node) => (node.dependsOn.includes(failedId) ? { ...node, dependsOn: withoutId(node.dependsOn, failedId, sinks) } : node));
  return parsePlan({ ...plan, nodes: [...nodes, ...rooted] }, { source: 'amended plan', rules });
}

/** A deterministic patch when no planner is configured: one edit node for the reported files. */
export function missedWorkNode(trigger: Extract<ReplanTrigger, { kind: 'missed-work' }>): PlanNode {
  const slug = (trigger.files[0] ?? trigger.title)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return {
    id: `edit-${slug || 'missed-work'}`,
    kind: 'edit',
    title: trigger.title,
    instructions: `${trigger.reason}\n(Reported by node ${trigger.nodeId}: the plan missed this work.)`,
    reads: [...trigger.files],
    writes: [...trigger.files],
    dependsOn: [trigger.nodeId],
  };
}

function keepFrozen(previous: Plan, next: Plan, frozen: ReadonlySet<string>, rules: PlanRules | undefined): Plan {
  const old = new Map(previous.nodes.map((node) => [node.id, node]));
  const nodes = next.nodes.map((node) => (frozen.has(node.id) ? old.get(node.id) ?? node : node));
  const present = new Set(nodes.map((node) => node.id));
  for (const id of frozen) if (!present.has(id) && old.has(id)) nodes.unshift(old.get(id)!);
  return parsePlan({ ...next, nodes }, { source: 'replanned plan', rules });
}

function uniqueId(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let index = 2; taken.has(candidate); index += 1) candidate = `${id}-${index}`;
  taken.add(candidate);
  return candidate;
}

function withoutId(dependsOn: readonly string[], removed: string, replacement: readonly string[]): string[] {
  if (!dependsOn.includes(removed)) return [...dependsOn];
  return [...new Set([...dependsOn.filter((id) => id !== removed), ...replacement])];
}
