import { nodeKind, nodeModels, type DagentConfig, type EventLog, type ModelRouting, type NodeModelChoice, type PlanNode } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

/**
 * Small-model routing for this invocation: config `smallModel` with the run's model, unless
 * `--no-routing` (`enabled: false`) or either is missing.
 */
export function modelRouting(config: Pick<DagentConfig, 'model' | 'smallModel'>, enabled = true): ModelRouting | undefined {
  if (!enabled || config.smallModel === undefined || config.model === undefined) return undefined;
  return { smallModel: config.smallModel, runModel: config.model };
}

/**
 * The model each model node will run on, as `show` and the estimate name it: the node's own (or
 * its role's) first model, else the small model when routing takes it, else the run's model;
 * undefined when none is known (no model configured) or the node runs no model.
 */
export function nodeModelChoice(context: CliContext, routing: ModelRouting | undefined): (node: PlanNode) => NodeModelChoice | undefined {
  return (node) => {
    if (!nodeKind(node.kind).runsModel) return undefined;
    const role = node.role === undefined ? undefined : context.config.roles?.[node.role];
    const models = nodeModels(node, role, [], routing);
    const model = models.primary ?? context.config.model;
    return model === undefined ? undefined : { model, routed: models.routed };
  };
}

/** A run's routing as its log records it (`routing/set`): off, or on with the small model it routes to. */
export interface RunRouting {
  readonly enabled: boolean;
  readonly smallModel?: string;
}

/** The routing the run last recorded, or undefined when no process recorded one (a run from before). */
export async function recordedRouting(log: EventLog): Promise<RunRouting | undefined> {
  const latest = (await log.read({ types: ['routing/set'] })).at(-1);
  return latest?.type === 'routing/set' ? latest.payload : undefined;
}

/**
 * The routing a `run` or `resume` goes on with, recorded in the run's log when it changes, so the
 * run's workers route as it does: `--routing`/`--no-routing` of this command, else the routing the
 * run recorded before (a resume keeps it), else on; the small model is this process's `smallModel`.
 */
export async function settleRunRouting(log: EventLog, flag: boolean | undefined, config: Pick<DagentConfig, 'model' | 'smallModel'>): Promise<RunRouting> {
  const recorded = await recordedRouting(log);
  const enabled = flag ?? recorded?.enabled ?? true;
  const smallModel = modelRouting(config, enabled)?.smallModel;
  const routing: RunRouting = { enabled, ...(smallModel === undefined ? {} : { smallModel }) };
  if (recorded?.enabled !== routing.enabled || recorded.smallModel !== routing.smallModel) await log.append({ type: 'routing/set', payload: routing });
  return routing;
}
