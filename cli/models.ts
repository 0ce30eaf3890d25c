import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, DEFAULT_PRICE_TABLE, costOf, createProvider, mergePriceTable, priceOf, type ConfiguredProvider, type PriceTable, type Usage } from '../engine/index.js';
import type { CliContext } from './cli-context.js';

export interface ChosenModel {
  readonly provider: ConfiguredProvider;
  /** `provider:model` as the price table knows it. */
  readonly modelId: string;
  price(usage: Usage): number;
}

export function priceTable(context: CliContext): PriceTable {
  return mergePriceTable(DEFAULT_PRICE_TABLE, context.config.prices as PriceTable | undefined);
}

export const NO_MODEL_CONFIGURED = 'no model configured: pass --model PROVIDER:MODEL (e.g. deepseek:deepseek-chat, or scripted:FILE offline), set DAGENT_MODEL, or "model" in .dagent/config.json';

/** The model for a role: `--model` / config `model` for nodes, `plannerModel` for the planner (falling back to `model`). */
export function modelIdFor(context: CliContext, role: 'node' | 'planner' | 'summarizer'): string {
  const id = role === 'planner' ? context.config.plannerModel ?? context.config.model : role === 'summarizer' ? context.config.summarizerModel ?? context.config.model : context.config.model;
  if (id === undefined) throw new ConfigError(NO_MODEL_CONFIGURED);
  return id;
}

/** Providers built so far, per CLI invocation and model id. */
const chosenByContext = new WeakMap<CliContext, Map<string, ChosenModel>>();

/**
 * The provider for a `provider:model` id with the workspace's settings (keys from the
 * environment), built once per invocation: the planner, its amendments during a replan and the
 * nodes share it, so a scripted model's queues go on where they stopped.
 */
export function chooseModel(context: CliContext, modelId: string): ChosenModel {
  let chosen = chosenByContext.get(context);
  if (chosen === undefined) {
    chosen = new Map();
    chosenByContext.set(context, chosen);
  }
  const known = chosen.get(modelId);
  if (known !== undefined) return known;
  const built = buildModel(context, modelId);
  chosen.set(modelId, built);
  return built;
}

function buildModel(context: CliContext, modelId: string): ChosenModel {
  const provider = createProvider(modelId, {
    env: context.io.env,
    ...(context.config.baseUrl === undefined ? {} : { baseUrl: context.config.baseUrl }),
    ...(context.config.contextWindows === undefined ? {} : { contextWindows: context.config.contextWindows }),
    readFile: (path) => readWorkspaceRelative(context, path),
  });
  const table = priceTable(context);
  const id = provider.modelId.id;
  return { provider, modelId: id, price: (usage) => costOf(usage, id, table).usd };
}

/** USD per call for plan estimates: input at the cache-miss rate. */
export function estimatePrice(context: CliContext, modelId: string | undefined): (inputTokens: number, outputTokens: number) => number {
  const price = modelId === undefined ? undefined : priceOf(modelId, priceTable(context));
  if (price === undefined) return () => 0;
  return (input, output) => (input * price.inputCacheMiss + output * price.output) / 1_000_000;
}

function readWorkspaceRelative(context: CliContext, path: string): string {
  return readFileSync(resolve(context.io.cwd, path), 'utf8');
}
