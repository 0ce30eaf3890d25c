import { nodeKind } from '../../plan/node-kinds.js';
import { planStages, planWidth } from '../../plan/plan-stages.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import type { NodeRuntime } from './execute-plan-node.js';

/**
 * Whether nothing a node does can change a file: a model node whose every tool only reads (as its
 * tool's risk says), with no hook that would run in its workspace. Such a node may share a
 * read-only view of the run's files with others (`isolation: worktree`); any other gets its own.
 */
export function readsOnly(runtime: Pick<NodeRuntime, 'tools' | 'defaultTools' | 'hooks'>, node: Pick<PlanNode, 'id' | 'kind' | 'tools'>): boolean {
  if (!nodeKind(node.kind).runsModel) return false;
  const allowed = node.tools ?? runtime.defaultTools(node.kind);
  if (allowed === undefined || runtime.tools.riskOf === undefined) return false;
  if (!allowed.every((name) => runtime.tools.riskOf!(name) === 'read')) return false;
  const hooks = runtime.hooks;
  if (hooks === undefined) return true;
  if ((['NodeStart', 'NodeEnd', 'PreCompact'] as const).some((event) => hooks.matches(event, node.id))) return false;
  return !allowed.some((name) => hooks.matches('PreToolUse', name) || hooks.matches('PostToolUse', name));
}

/** The most nodes of one stage of `plan` that need a workspace of their own (not `readsOnly`), within `concurrency`. */
export function ownWorkspacesAtOnce(runtime: Pick<NodeRuntime, 'tools' | 'defaultTools' | 'hooks'>, plan: Plan, concurrency: number): number {
  const byId = new Map(plan.nodes.map((node) => [node.id, node]));
  return Math.min(concurrency, planWidth(planStages(plan).map((stage) => stage.filter((id) => !readsOnly(runtime, byId.get(id)!)))));
}
