import type { PlanNode } from '../../plan/plan-schema.js';

/** The models a node may run on: `primary` (undefined: the run's model) and the fallbacks, in order. */
export interface NodeModels {
  readonly primary: string | undefined;
  readonly fallbacks: readonly string[];
  /** Ids the plan document itself names (its author, not the user, chose them). */
  readonly fromPlan: ReadonlySet<string>;
  /** The node runs on the small model because the plan marks it simple (`routing`). */
  readonly routed: boolean;
}

/**
 * Small-model routing (config `smallModel`; off with `run --no-routing`): nodes the plan marks
 * `simple` run on `smallModel`, the run's model first to take over if it fails.
 */
export interface ModelRouting {
  readonly smallModel: string;
  /** The run's model (`provider:model`). */
  readonly runModel: string;
}

/** A role's models as config gives them. */
export interface RoleModels {
  readonly model?: string | readonly string[];
  readonly fallbackModels?: readonly string[];
}

/**
 * Which models a node runs on. Pure. Its own `model` wins over its role's, the first of a list
 * runs; the rest of the list, then `fallbackModels` (the node's, else its role's, else the
 * config's) take over in order. A model listed twice is tried once. With `routing`, a node the
 * plan marks `simple` that names no model, nor its role, runs on the small model, with the run's
 * model first to take over (`routed`).
 */
export function nodeModels(
  node: Pick<PlanNode, 'model' | 'fallbackModels'> & { readonly simple?: boolean | undefined },
  role: RoleModels | undefined,
  configFallbacks: readonly string[] = [],
  routing?: ModelRouting,
): NodeModels {
  const named = listOf(node.model ?? role?.model);
  const routed = isRouted(node, named, routing);
  const primary = routed ? routing?.smallModel : named[0];
  const fallbacks = [...(routed && routing !== undefined ? [routing.runModel] : named.slice(1)), ...(node.fallbackModels ?? role?.fallbackModels ?? configFallbacks)];
  const fromPlan = new Set([...listOf(node.model), ...(node.fallbackModels ?? [])]);
  return { primary, fallbacks: fallbacks.filter((id, index) => id !== primary && fallbacks.indexOf(id) === index), fromPlan, routed };
}

/** The routing rule: routing on, a small model other than the run's, the node marked simple, and no model named for it. */
function isRouted(node: { readonly simple?: boolean | undefined }, named: readonly string[], routing: ModelRouting | undefined): boolean {
  return routing !== undefined && routing.smallModel !== routing.runModel && node.simple === true && named.length === 0;
}

function listOf(model: string | readonly string[] | undefined): readonly string[] {
  return model === undefined ? [] : typeof model === 'string' ? [model] : model;
}
