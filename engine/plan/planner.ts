import type { NodeWaitsFor } from '../scheduler/schedulable-node.js';
import type { PlanRules } from './plan-rules.js';
import type { Plan, PlanNode } from './plan-schema.js';

/**
 * The run's budget as a planner asks it: engine/agent's `ModelCallGate`, spelled out here so plans
 * do not depend on the agent folder (the two are the same shape).
 */
export interface PlannerCallGate {
  admit(call: { readonly nodeId: string | null; readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number; readonly call?: 'summary' }): Promise<{ readonly admitted: true; settle(): void } | { readonly admitted: false; readonly reason: string }>;
}

/** What a finished node handed over. */
export interface CompletedNode {
  readonly nodeId: string;
  readonly result: string;
  readonly filesChanged: readonly string[];
}

/** Why the plan needs amending (a failure's `waitsFor`: what it waits for outside the run, see `NodeWaitsFor`). */
export type ReplanTrigger =
  | { readonly kind: 'failure'; readonly nodeId: string; readonly error: string; readonly waitsFor?: NodeWaitsFor }
  | { readonly kind: 'missed-work'; readonly nodeId: string; readonly title: string; readonly files: readonly string[]; readonly reason: string };

export interface PlanInput {
  readonly runId: string;
  readonly task: string;
  readonly workspace: string;
  /** Workspace-relative paths the task named with `@path`, to be read with tools. */
  readonly paths: readonly string[];
  readonly signal: AbortSignal;
  /** The rules the plan is checked by, as the run's isolation allows (default: nodes share the working copy). */
  readonly rules?: PlanRules | undefined;
  /** The run's budget (`plan --max-cost`, config `budget`): asked before each of the planner's model calls; a refused call stops the planning. */
  readonly gate?: PlannerCallGate;
}

export interface AmendInput {
  readonly runId: string;
  readonly task: string;
  readonly workspace: string;
  readonly plan: Plan;
  /** `full`: a whole new plan; `append`: only nodes for the missed or failed work. */
  readonly mode: 'full' | 'append';
  readonly trigger: ReplanTrigger;
  readonly completed: readonly CompletedNode[];
  readonly signal: AbortSignal;
  /** The run's budget: asked before each of the planner's model calls, like a node's; a refused call stops the amendment. */
  readonly gate?: PlannerCallGate;
  /** The rules the amended plan is checked by, as the run's isolation allows. */
  readonly rules?: PlanRules | undefined;
}

/** An amendment from a planner: nodes to append (the engine rewires), or a whole new plan. */
export type PlanPatch = { readonly kind: 'append'; readonly nodes: readonly PlanNode[] } | { readonly kind: 'replace'; readonly plan: Plan };

/** Turns a task into a plan, and amends a plan when the replanning rules ask for it. */
export interface Planner {
  plan(input: PlanInput): Promise<Plan>;
  amend(input: AmendInput): Promise<PlanPatch>;
}
