import type { PlanNode } from '../../plan/plan-schema.js';

/** The models a node may run on: `primary` (undefined: the run's model) and the fallbacks, in order. */
export interface NodeModels {
  readonly primary: string | undefined;
  readonly fallbacks: readonly string[];
  /** Ids the plan document itself names (its author, not the user, chose them). */
  readonly fromPlan: ReadonlySet<string>;
}

/** A role's models as config gives them. */
export interface RoleModels {
  readonly model?: string | readonly string[];
  readonly fallbackModels?: readonly string[];
}

/**
 * Which models a node runs on. Pure. Its own `model` wins over its role's, the first of a list
 * runs; the rest of the list, then `fallbackModels` (the node's, else its role's, else the
 * config's) take over in order. A model listed twice is tried once.
 */
export function nodeModels(node: Pick<PlanNode, 'model' | 'fallbackModels'>, role: RoleModels | undefined, configFallbacks: readonly string[] = []): NodeModels {
  const named = listOf(node.model ?? role?.model);
  const primary = named[0];
  const fallbacks = [...named.slice(1), ...(node.fallbackModels ?? role?.fallbackModels ?? configFallbacks)];
  const fromPlan = new Set([...listOf(node.model), ...(node.fallbackModels ?? [])]);
  return { primary, fallbacks: fallbacks.filter((id, index) => id !== primary && fallbacks.indexOf(id) === index), fromPlan };
}

function listOf(model: string | readonly string[] | undefined): readonly string[] {
  return model === undefined ? [] : typeof model === 'string' ? [model] : model;
}
