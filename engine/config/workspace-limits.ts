import { DEFAULT_AGENT_LIMITS } from '../agent/stop-conditions.js';
import { DEFAULT_TOOL_BATCH_TIMEOUT_MS } from '../agent/execute-tool-calls.js';
import { DEFAULT_PRICE_TABLE, priceOf } from '../model/price-table.js';
import { DEFAULT_RUN_SETTINGS } from '../run/orchestration/run-options.js';
import type { DagentConfig } from './config-schema.js';

/**
 * A repository's `.dagent/config.json` may tighten the user's limits, never loosen them: for each
 * cap, the stricter of the repository's value and the user's own (their config file, else dagent's
 * built-in default) counts. Prices count as limits too (budgets and estimates rest on them): a
 * repository may raise a price, never lower one. The user's config can allow a repository to
 * loosen them (`allowWorkspaceToLoosenLimits: true`); only the user's own file can say so.
 */

/** A cap a repository may lower but not raise, and dagent's value when the user set none. */
interface Cap {
  readonly name: string;
  readonly get: (config: DagentConfig) => number | undefined;
  readonly set: (config: DagentConfig, value: number) => DagentConfig;
  readonly builtin: number;
}

const CAPS: readonly Cap[] = [
  topLevel('concurrency', DEFAULT_RUN_SETTINGS.concurrency),
  topLevel('maxSteps', DEFAULT_AGENT_LIMITS.maxSteps),
  topLevel('tokenBudget', DEFAULT_AGENT_LIMITS.tokenBudget),
  topLevel('nodeRetries', DEFAULT_RUN_SETTINGS.maxAttempts - 1),
  topLevel('toolBatchTimeoutMs', DEFAULT_TOOL_BATCH_TIMEOUT_MS),
  {
    name: 'replan.maxReplans',
    get: (config) => config.replan?.maxReplans,
    set: (config, value) => ({ ...config, replan: { ...config.replan, maxReplans: value } }),
    builtin: DEFAULT_RUN_SETTINGS.maxReplans,
  },
];

function topLevel(name: 'concurrency' | 'maxSteps' | 'tokenBudget' | 'nodeRetries' | 'toolBatchTimeoutMs', builtin: number): Cap {
  return { name, get: (config) => config[name], set: (config, value) => ({ ...config, [name]: value }), builtin };
}

export interface TightenedConfig {
  readonly config: DagentConfig;
  /** What the repository tried to loosen, each as `name: asked → kept`, for a one-line notice. */
  readonly loosened: readonly string[];
  /** Budget caps the repository tried to raise, as `budget.maxCostUsd: asked → kept`: never allowed. */
  readonly raisedBudget: readonly string[];
}

/**
 * `workspace` with every limit no looser than `user`'s (or the built-in one), unless `user` allows
 * loosening. The budget is tightened whatever `user` allows: a repository may lower it, never raise it.
 */
export function tightenOnly(workspace: DagentConfig, user: DagentConfig): TightenedConfig {
  const { allowWorkspaceToLoosenLimits: _ignored, ...unbudgeted } = workspace;
  const budget = lowerBudgetOnly(unbudgeted.budget, user.budget);
  const rest: DagentConfig = budget.budget === undefined ? withoutBudget(unbudgeted) : { ...unbudgeted, budget: budget.budget };
  if (user.allowWorkspaceToLoosenLimits === true) return { config: rest, loosened: [], raisedBudget: budget.raised };
  let config: DagentConfig = rest;
  const loosened: string[] = [];
  for (const cap of CAPS) {
    const asked = cap.get(config);
    if (asked === undefined) continue;
    const limit = cap.get(user) ?? cap.builtin;
    if (asked > limit) {
      loosened.push(`${cap.name}: ${asked} → ${limit}`);
      config = cap.set(config, limit);
    }
  }
  if (config.prices !== undefined) {
    const prices = stricterPrices(config.prices, user.prices ?? {}, loosened);
    config = { ...config, prices };
  }
  return { config, loosened, raisedBudget: budget.raised };
}

type Budget = NonNullable<DagentConfig['budget']>;

/** Each cap of the repository's budget no higher than the user's (no user cap: any repository cap lowers "none"). */
function lowerBudgetOnly(asked: Budget | undefined, user: Budget | undefined): { budget: Budget | undefined; raised: string[] } {
  if (asked === undefined) return { budget: undefined, raised: [] };
  const raised: string[] = [];
  const budget: { maxCostUsd?: number; maxTokens?: number } = {};
  for (const key of ['maxCostUsd', 'maxTokens'] as const) {
    const value = asked[key];
    if (value === undefined) continue;
    const limit = user?.[key];
    if (limit !== undefined && value > limit) raised.push(`budget.${key}: ${value} → ${limit}`);
    budget[key] = limit === undefined ? value : Math.min(value, limit);
  }
  return { budget: { ...user, ...budget }, raised };
}

function withoutBudget(config: DagentConfig): DagentConfig {
  const { budget: _budget, ...rest } = config;
  return rest;
}

type Prices = NonNullable<DagentConfig['prices']>;

/** Each price of `asked` no lower than the user's or the built-in one for that model. */
function stricterPrices(asked: Prices, user: Prices, loosened: string[]): Prices {
  const result: Record<string, Record<string, number>> = {};
  for (const [model, row] of Object.entries(asked)) {
    const base: Readonly<Record<string, number>> = user[model] ?? (priceOf(model, DEFAULT_PRICE_TABLE) as Readonly<Record<string, number>> | undefined) ?? {};
    const merged: Record<string, number> = { ...base };
    for (const [field, value] of Object.entries(row)) {
      const floor = base[field];
      if (floor !== undefined && value < floor) loosened.push(`prices.${model}.${field}: ${value} → ${floor}`);
      merged[field] = floor === undefined ? value : Math.max(value, floor);
    }
    result[model] = merged;
  }
  return result;
}
