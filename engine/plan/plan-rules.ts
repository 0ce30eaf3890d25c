/**
 * The rules a plan is checked by that depend on how its nodes will run. `parallelWrites`: whether
 * two nodes no dependency orders may declare the same file. `refuse` where nodes share the working
 * copy (`isolation: shared`: one would overwrite the other's file); `merge` where each node has its
 * own workspace (`isolation: worktree`): their changes are merged in plan order, different hunks
 * cleanly, the same lines a conflict the run handles.
 */
export interface PlanRules {
  readonly parallelWrites: 'refuse' | 'merge';
}

/** The rules where nodes share one working copy: the default wherever the isolation is not known. */
export const SHARED_PLAN_RULES: PlanRules = { parallelWrites: 'refuse' };

/** The rules where each node runs in its own worktree. */
export const ISOLATED_PLAN_RULES: PlanRules = { parallelWrites: 'merge' };
