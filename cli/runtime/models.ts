import { readFileSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ConfigError, costOf, createProvider, type ConfiguredProvider, type Usage } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { priceTable } from './model-prices.js';

export interface ChosenModel {
  readonly provider: ConfiguredProvider;
  /** `provider:model` as the price table knows it. */
  readonly modelId: string;
  price(usage: Usage): number;
}

const NO_MODEL_CONFIGURED = 'no model configured: pass --model PROVIDER:MODEL (e.g. deepseek:deepseek-chat, or scripted:FILE offline), set DAGENT_MODEL, or "model" in .dagent/config.json';

/** That no model is configured, and how to name one; a workspace's own untrusted model is named as the way (`dagent trust`). */
export function noModelConfigured(context: Pick<CliContext, 'untrustedKeys'>): string {
  if (!context.untrustedKeys.some((key) => key === 'model' || key === 'plannerModel')) return NO_MODEL_CONFIGURED;
  return 'no model configured: this workspace\'s .dagent/config.json names one, left out until you trust the workspace (`dagent trust`); or pass --model PROVIDER:MODEL, or set DAGENT_MODEL';
}

/** The model for a role: `--model` / config `model` for nodes, `plannerModel` for the planner (falling back to `model`). */
export function modelIdFor(context: CliContext, role: 'node' | 'planner' | 'summarizer'): string {
  const id = role === 'planner' ? context.config.plannerModel ?? context.config.model : role === 'summarizer' ? context.config.summarizerModel ?? context.config.model : context.config.model;
  if (id === undefined) throw new ConfigError(noModelConfigured(context));
  return id;
}

/** Providers built so far, per CLI invocation and model id. */
const chosenByContext = new WeakMap<CliContext, Map<string, ChosenModel>>();

/**
 * The provider for a `provider:model` id with the workspace's settings (keys from the
 * environment), built once per invocation: the planner, its amendments during a replan and the
 * nodes share it, so a scripted model's queues go on where they stopped. A model named by a plan
 * document (`fromPlan`) was written by whoever wrote the plan: its `scripted:` file must lie
 * inside the workspace.
 */
export function chooseModel(context: CliContext, modelId: string, options: { fromPlan?: boolean } = {}): ChosenModel {
  let chosen = chosenByContext.get(context);
  if (chosen === undefined) {
    chosen = new Map();
    chosenByContext.set(context, chosen);
  }
  const key = `${options.fromPlan === true ? 'plan' : 'user'} ${modelId}`;
  const known = chosen.get(key);
  if (known !== undefined) return known;
  const built = buildModel(context, modelId, options);
  chosen.set(key, built);
  return built;
}

function buildModel(context: CliContext, modelId: string, options: { fromPlan?: boolean }): ChosenModel {
  const provider = createProvider(modelId, {
    env: context.io.env,
    ...(context.config.baseUrl === undefined ? {} : { baseUrl: context.config.baseUrl }),
    ...(context.config.contextWindows === undefined ? {} : { contextWindows: context.config.contextWindows }),
    ...(context.config.images?.models === undefined ? {} : { imageModels: context.config.images.models }),
    readFile: (path) => (options.fromPlan === true ? readInsideWorkspace(context.workspace, path) : readFileSync(resolve(context.io.cwd, path), 'utf8')),
  });
  const table = priceTable(context);
  const id = provider.modelId.id;
  return { provider, modelId: id, price: (usage) => costOf(usage, id, table).usd };
}

function readInsideWorkspace(workspace: string, path: string): string {
  const root = realpathSync(workspace);
  let target: string;
  try {
    target = realpathSync(resolve(root, path));
  } catch {
    throw new ConfigError(`the plan names the model scripted:${path}, which does not exist in the workspace`);
  }
  if (target !== root && !target.startsWith(`${root}${sep}`)) throw new ConfigError(`the plan names the model scripted:${path}, outside the workspace: refused`);
  return readFileSync(target, 'utf8');
}
