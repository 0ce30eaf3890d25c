import { statSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { analyzePlan, estimatePlan, visibleJson, visibleText } from '../../engine/read-face.js';
import { estimatedNodeTokens, type Plan, type PlanAnalysis, type PlanNode, type LintFinding, type StoredPlan } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { estimatePrice } from '../runtime/model-prices.js';
import { modelRouting, nodeModelChoice } from '../runtime/model-routing.js';
import { planShowJson, renderPlanDot, renderPlanMermaid, renderPlanText } from '../render/index.js';

export type PlanFormat = 'text' | 'json' | 'mermaid' | 'dot';

export const PLAN_FORMATS: readonly PlanFormat[] = ['text', 'json', 'mermaid', 'dot'];

/** Sizes of the workspace files the plan's reads and writes cover, for the estimate. */
export async function planFileSizes(workspace: string, plan: Plan): Promise<Map<string, number>> {
  const patterns = [...new Set(plan.nodes.flatMap((node) => [...node.reads, ...node.writes]))];
  const sizes = new Map<string, number>();
  if (patterns.length === 0) return sizes;
  const files = await glob(patterns, { cwd: workspace, dot: true, ignore: ['**/node_modules/**', '.git/**', '.dagent/**'], onlyFiles: true });
  for (const file of files) {
    try {
      sizes.set(file, statSync(join(workspace, file)).size);
    } catch {
      // vanished between the glob and the stat: not part of the estimate
    }
  }
  return sizes;
}

/**
 * What each model node of `plan` weighs when the run's slots are short: the tokens the review
 * estimates for it from the workspace's files it covers, as `dagent plan` shows them
 * (`estimatedNodeTokens`: `undefined` for a node a replan added or changed, or one that runs no
 * model, which the run weighs by its planned cost).
 */
export async function reviewedNodeCosts(workspace: string, plan: Plan): Promise<(node: PlanNode) => number | undefined> {
  return estimatedNodeTokens(plan, await planFileSizes(workspace, plan));
}

/**
 * Stages, critical path, width, estimate and lint: everything review shows besides the plan. Each
 * model node's estimate names the model it will run on (small-model routing included, unless
 * `routing: false`) and is priced with that model.
 */
export async function analyzeForReview(context: CliContext, plan: Plan, lint: readonly LintFinding[] = [], options: { readonly routing?: boolean } = {}): Promise<PlanAnalysis> {
  const fileSizes = await planFileSizes(context.workspace, plan);
  const prices = new Map<string | undefined, (input: number, output: number) => number>();
  const price = (input: number, output: number, model?: string): number => {
    const id = model ?? context.config.model;
    let priced = prices.get(id);
    if (priced === undefined) prices.set(id, (priced = estimatePrice(context, id)));
    return priced(input, output);
  };
  const modelOf = nodeModelChoice(context, modelRouting(context.config, options.routing ?? true));
  const estimate = estimatePlan(plan, { fileSizes, price, modelOf });
  return analyzePlan(plan, { estimate, lint });
}

/**
 * Prints a stored plan in the chosen format (`--json` forces json; with `--format mermaid` or
 * `dot` it is `{ runId, status, planVersion, hash, format, diagram }`). JSON shapes of the CLI
 * contract: `plan` → `{ runId, status, planVersion, plan }`; `show` → the plan document with
 * `stages`, `criticalPath`, `width`, `estimate`, `lint` (plus run id, version, status, hash).
 */
export function printPlan(context: CliContext, stored: StoredPlan, analysis: PlanAnalysis, format: PlanFormat, shape: 'plan' | 'show' = 'show', reused: readonly string[] = []): void {
  const out = context.io.stdout;
  if (context.json && (format === 'mermaid' || format === 'dot')) {
    // Both asked for: the diagram, in the JSON the other commands answer with.
    const diagram = format === 'mermaid' ? renderPlanMermaid(stored.plan) : renderPlanDot(stored.plan);
    writeLine(out, visibleJson(JSON.stringify({ runId: stored.runId, status: stored.status, planVersion: stored.version, hash: stored.hash, format, diagram })));
    return;
  }
  const chosen = context.json ? 'json' : format;
  switch (chosen) {
    case 'json': {
      const document = planShowJson(stored.plan, analysis);
      const header = { runId: stored.runId, status: stored.status, planVersion: stored.version, hash: stored.hash, ...(shape === 'show' ? { reused } : {}) };
      writeLine(out, visibleJson(JSON.stringify(shape === 'plan' ? { ...header, plan: document } : { ...document, ...header })));
      return;
    }
    case 'mermaid':
      writeLine(out, visibleText(renderPlanMermaid(stored.plan), { multiline: true }));
      return;
    case 'dot':
      writeLine(out, visibleText(renderPlanDot(stored.plan), { multiline: true }));
      return;
    case 'text':
      writeLine(out, renderPlanText(stored.plan, analysis, { runId: stored.runId, version: stored.version, status: stored.status, details: true, reused }));
      writeLine(out, `plan hash ${stored.hash}`);
  }
}
