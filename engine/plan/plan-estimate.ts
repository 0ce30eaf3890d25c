import picomatch from 'picomatch';
import { nodeKind } from './node-kinds.js';
import type { Plan, PlanNode } from './plan-schema.js';
import { isGlobPattern } from './writes-overlap.js';

/** The usual rule of thumb for source code and English text. */
export const BYTES_PER_TOKEN = 4;
/** A node agent's system prompt and tool definitions, sent before any of its own content. */
export const NODE_OVERHEAD_TOKENS = 3_000;
/** A node agent's final answer and reasoning around its tool calls. */
export const NODE_ANSWER_TOKENS = 300;

/** USD for one model call's tokens, from the price table of `model` (the node's, when `modelOf` names it). */
export type PriceFunction = (inputTokens: number, outputTokens: number, model?: string) => number;

/** The model a node will run on (`provider:model`), and whether small-model routing chose it. */
export interface NodeModelChoice {
  readonly model: string;
  readonly routed: boolean;
}

export interface PlanEstimateOptions {
  /** Workspace-relative path → size in bytes, for the files the plan's globs may match. */
  readonly fileSizes: ReadonlyMap<string, number>;
  readonly price: PriceFunction;
  /** The model a model node will run on, when known: its estimate names it and is priced with it. */
  readonly modelOf?: (node: PlanNode) => NodeModelChoice | undefined;
  /** Tokens of a file; default `ceil(bytes / BYTES_PER_TOKEN)`. */
  readonly countTokens?: (bytes: number, path: string) => number;
  readonly nodeOverheadTokens?: number;
  readonly answerTokens?: number;
}

export interface NodeEstimate {
  readonly nodeId: string;
  /** Known files the node's reads and writes cover. */
  readonly files: readonly string[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly tokens: number;
  readonly costUsd: number;
  /** The model the node will run on (`modelOf`), when known. */
  readonly model?: string;
  /** Small-model routing sends it to `model` (the plan marks it simple). */
  readonly routed?: boolean;
}

export interface PlanEstimate {
  readonly nodes: readonly NodeEstimate[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/**
 * A rough token and cost estimate, node by node. A model node reads its overhead, its title and
 * instructions, and every file its reads and writes cover; it writes its answer plus every file
 * it writes (as if rewritten: an upper bound for edits). A command node runs no model: zero.
 * A node's own `estimate` replaces the computed total, split with the computed output share.
 */
export function estimatePlan(plan: Plan, options: PlanEstimateOptions): PlanEstimate {
  const countTokens = options.countTokens ?? ((bytes: number) => Math.ceil(bytes / BYTES_PER_TOKEN));
  const tokensOf = (path: string): number => countTokens(options.fileSizes.get(path) ?? 0, path);
  const nodes = plan.nodes.map((node) => estimateNode(node, options, tokensOf));
  const sum = (pick: (node: NodeEstimate) => number): number => nodes.reduce((total, node) => total + pick(node), 0);
  return {
    nodes,
    inputTokens: sum((node) => node.inputTokens),
    outputTokens: sum((node) => node.outputTokens),
    tokens: sum((node) => node.tokens),
    costUsd: sum((node) => node.costUsd),
  };
}

/**
 * What each model node of `plan` weighs, in estimated tokens (`estimatePlan`, from the files it
 * covers; its `estimate` when it has one), for a node still as `plan` gives it. A node that runs
 * no model, or one changed or added since (a replan's), gets `undefined`: its caller weighs it
 * otherwise.
 */
export function estimatedNodeTokens(plan: Plan, fileSizes: ReadonlyMap<string, number>): (node: PlanNode) => number | undefined {
  const { nodes } = estimatePlan(plan, { fileSizes, price: () => 0 });
  const tokens = new Map(nodes.map((estimate, index) => [estimateKey(plan.nodes[index]!), estimate.tokens]));
  return (node) => (nodeKind(node.kind).runsModel ? tokens.get(estimateKey(node)) : undefined);
}

/** What a node's estimate depends on. */
function estimateKey(node: PlanNode): string {
  return JSON.stringify([node.id, node.kind, node.title, node.instructions, node.reads, node.writes, node.estimate ?? null]);
}

function estimateNode(node: PlanNode, options: PlanEstimateOptions, tokensOf: (path: string) => number): NodeEstimate {
  if (!nodeKind(node.kind).runsModel) return { nodeId: node.id, files: [], inputTokens: 0, outputTokens: 0, tokens: 0, costUsd: 0 };
  const written = matchFiles(node.writes, options.fileSizes);
  const files = [...new Set([...matchFiles(node.reads, options.fileSizes), ...written])];
  const overhead = options.nodeOverheadTokens ?? NODE_OVERHEAD_TOKENS;
  const prompt = Math.ceil((node.title.length + node.instructions.length) / BYTES_PER_TOKEN);
  let inputTokens = overhead + prompt + files.reduce((total, path) => total + tokensOf(path), 0);
  let outputTokens = (options.answerTokens ?? NODE_ANSWER_TOKENS) + written.reduce((total, path) => total + tokensOf(path), 0);
  if (node.estimate !== undefined) {
    outputTokens = Math.min(node.estimate, Math.round((node.estimate * outputTokens) / (inputTokens + outputTokens)));
    inputTokens = node.estimate - outputTokens;
  }
  const tokens = inputTokens + outputTokens;
  const choice = options.modelOf?.(node);
  return {
    nodeId: node.id,
    files,
    inputTokens,
    outputTokens,
    tokens,
    costUsd: options.price(inputTokens, outputTokens, choice?.model),
    ...(choice === undefined ? {} : { model: choice.model, ...(choice.routed ? { routed: true } : {}) }),
  };
}

/** Known files a list of paths and globs covers; a literal path counts even if it is new. */
function matchFiles(patterns: readonly string[], fileSizes: ReadonlyMap<string, number>): string[] {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (!isGlobPattern(pattern)) {
      files.push(pattern);
      continue;
    }
    const isMatch = picomatch(pattern, { dot: true });
    for (const path of fileSizes.keys()) if (isMatch(path)) files.push(path);
  }
  return [...new Set(files)];
}
