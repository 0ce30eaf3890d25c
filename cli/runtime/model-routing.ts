import { nodeKind, nodeModels, type DagentConfig, type ModelRouting, type NodeModelChoice, type PlanNode } from '../../engine/index.js';
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
