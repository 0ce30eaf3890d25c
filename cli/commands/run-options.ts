/** The run flags' descriptions, shared by the commands that start a run (`run`, `resume`, `plan --yes`, `rerun`, `team`) without loading the run machinery. */
import { integerAtLeast, positiveNumber } from '../context/cli-args.js';

export const DASHBOARD_DESCRIPTION = 'show the live dashboard (the default on a terminal); --no-dashboard prints progress lines';
export const REUSE_DESCRIPTION = 'after a plan edit, keep the result of each node whose inputs did not change (the default); --no-reuse runs the changed nodes and every node after them again';
export const MAX_COST_OPTION = { requiresArg: true, coerce: positiveNumber('--max-cost'), describe: "the run's spending cap in USD (config `budget.maxCostUsd`): at it the run pauses, and `resume --max-cost` with a higher one goes on" } as const;
export const MAX_TOKENS_OPTION = { requiresArg: true, coerce: integerAtLeast('--max-tokens', 1), describe: "the run's cap on model tokens, input + output (config `budget.maxTokens`): at it the run pauses" } as const;
export const ROUTING_DESCRIPTION = "with config `smallModel`, nodes the plan marks simple and compaction summaries run on the small model (the default); --no-routing runs them on the run's model";
export const APPROVE_FROM_DASHBOARD_DESCRIPTION = 'approvals wait for an answer from `dagent dashboard` instead of being denied when there is no terminal';
