import { resolve } from 'node:path';
import type { CliContext } from '../context/cli-context.js';
import { chooseModel, modelIdFor } from '../runtime/models.js';

/**
 * The models a plan is made with, checked (provider known, key present) and recorded with the
 * run, so `dagent run` uses them unless it is told otherwise. A scripted model is recorded by its
 * absolute path: the run may start from another folder.
 */
export function recordedModels(context: CliContext): Record<string, string> {
  const models: Record<string, string> = {};
  // A plan document needs no model to be made: then only a model the user named is recorded.
  if (context.config.model === undefined && context.config.plannerModel === undefined) return models;
  for (const role of ['planner', 'node'] as const) {
    const id = role === 'planner' ? modelIdFor(context, 'planner') : context.config.model;
    if (id === undefined) continue;
    models[role === 'planner' ? 'plannerModel' : 'model'] = recordedModelId(context, id);
  }
  return models;
}

/** A model id as a run records it, checked: a scripted model by its absolute path. */
export function recordedModelId(context: CliContext, id: string): string {
  const chosen = chooseModel(context, id);
  return chosen.provider.modelId.provider === 'scripted' ? `scripted:${resolve(context.io.cwd, chosen.provider.model)}` : id;
}
