import { ConfigError, effectiveBudget, planTask, type Planner, type RunBudget } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { createApprover, createTools } from '../runtime/compose-runtime.js';
import { chooseModel, modelIdFor, noModelConfigured } from '../runtime/models.js';
import { loadPlanners } from '../runtime/load-planners.js';
import { checkTaskImages, createImageSupport } from '../runtime/task-images.js';
import { planLinter } from './plan-lint.js';
import { planRulesFor } from './plan-rules.js';
import { recordedModels } from './recorded-models.js';

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
    return createLlmPlanner({ db, provider: chosen.provider, model: chosen.provider.model, price: chosen.price, tools: await createTools(context, { mcp: false }), approver: createApprover(context) });
  };
  return {
    plan: async (input) => (await (planner ??= build())).plan(input),
    amend: async (input) => (await (planner ??= build())).amend(input),
  };
}

/**
 * Plans a task with the model: `@path` references are checked before any model call, then the
 * run is created and planned (see `planTask`).
 */
export async function planWithModel(context: CliContext, task: string, budgetFlags: RunBudget = {}): Promise<string> {
  const { extractTaskReferences } = await loadPlanners();
  const references = await extractTaskReferences(task, context.workspace);
  const planner = await createPlanner(context);
  if (planner === undefined) throw new ConfigError(noModelConfigured(context));
  // Images the task names are shown to the nodes that name them: their model must take images.
  if (context.config.model !== undefined) await checkTaskImages(references.task, chooseModel(context, context.config.model).provider, createImageSupport(context));
  // A missing key or an unknown provider is refused here, before a run exists to fail.
  const models = recordedModels(context);
  const { db } = await context.store();
  // A budget given now (flags, else config) holds from the planner's first call.
  const budget = effectiveBudget(budgetFlags, undefined, context.config.budget);
  return planTask({
    ...(budget === undefined ? {} : { budget: { caps: budget.budget, source: budget.source === 'flags' ? 'flags' : 'config' } }),
    db,
    config: models,
    planner,
    task: references.task,
    workspace: context.workspace,
    paths: references.paths,
    signal: context.io.interrupt,
    rules: await planRulesFor(context),
    linter: planLinter(context),
    onStart: (runId) => {
      if (!context.json) context.io.stderr.write(`run ${runId} · planning…\n`);
    },
  });
}
