import { createRun, endRun, errorMessage, savePlan, type Planner } from '../engine/index.js';
import type { CliContext } from './cli-context.js';
import { createApprover, createTools } from './compose-runtime.js';
import { chooseModel, modelIdFor } from './models.js';
import { loadPlanners } from './plan-lint.js';

/**
 * The LLM planner with the planner's model (`plannerModel`, else `model`), or undefined when no
 * model is configured. It is built on first use: a run that never replans never loads it.
 */
export async function createPlanner(context: CliContext): Promise<Planner | undefined> {
  const modelId = context.config.plannerModel ?? context.config.model;
  if (modelId === undefined) return undefined;
  let planner: Promise<Planner> | undefined;
  const build = async (): Promise<Planner> => {
    const { db } = await context.store();
    const chosen = chooseModel(context, modelId);
    const { createLlmPlanner } = await loadPlanners();
    return createLlmPlanner({ db, provider: chosen.provider, model: chosen.provider.model, price: chosen.price, tools: await createTools(context), approver: createApprover(context) });
  };
  return {
    plan: async (input) => (await (planner ??= build())).plan(input),
    amend: async (input) => (await (planner ??= build())).amend(input),
  };
}

/**
 * Plans a task with the model: `@path` references are checked before any model call, a run is
 * created, and the planner's plan is stored as v1 awaiting approval. A planning failure marks
 * the run failed (every attempt stays in its log) and is thrown.
 */
export async function planWithModel(context: CliContext, task: string): Promise<string> {
  const { extractTaskReferences } = await loadPlanners();
  const references = await extractTaskReferences(task, context.workspace);
  const planner = await createPlanner(context);
  if (planner === undefined) modelIdFor(context, 'planner');
  const { db } = await context.store();
  const run = await createRun(db, { task, workspace: context.workspace, mode: 'plan' });
  if (!context.json) context.io.stderr.write(`run ${run.id} · planning…\n`);
  try {
    const plan = await planner!.plan({ runId: run.id, task: references.task, workspace: context.workspace, paths: references.paths, signal: context.io.interrupt });
    await savePlan(db, run.id, { plan, reason: 'planned' });
    return run.id;
  } catch (error) {
    const message = errorMessage(error);
    await endRun(db, run.id, { status: 'failed', error: message.startsWith('planning failed') ? message : `planning failed: ${message}` });
    throw error;
  }
}
