import { ISOLATED_PLAN_RULES, SHARED_PLAN_RULES, chooseIsolation, type PlanRules } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

/**
 * The rules a plan made or imported here is checked by: in a git repository, where each node gets
 * its own worktree (`isolation`, default `worktree`), unordered nodes may write one file (their
 * changes merge in plan order); in a shared working copy they are refused.
 */
export async function planRulesFor(context: CliContext): Promise<PlanRules> {
  const isolation = await chooseIsolation(context.config.isolation, context.workspace);
  return isolation.mode === 'worktree' ? ISOLATED_PLAN_RULES : SHARED_PLAN_RULES;
}
