import { existsSync } from 'node:fs';
import {
  MemoryStore,
  ScopedMemoryStore,
  callModel,
  openDatabase,
  secretsFromConfig,
  secretsFromEnvironment,
  userMemoryDatabasePath,
  nodeKind,
  createCompactor,
  loadProjectMemory,
  projectMemorySection,
  recallMemories,
  type AgentCompactor,
  type Approver,
  type ContextProvider,
  type MemoryBank,
  type ModelProvider,
  type NodeRuntime,
  type PlanNodeKind,
  type PromptSection,
  type ResolvedModel,
  type StreamPart,
  type Usage,
} from '../../engine/index.js';
import { createHookRunner, createNonInteractiveApprover, createSymbolTools, createRememberTool, createTerminalApprover, createToolRuntime, PLAN_TOOLS, toolSet, type LocalToolRuntime } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';
import { createConfinement } from './confinement.js';
import { keyFactsToMemory } from './key-facts-to-memory.js';
import { chooseModel, modelIdFor } from './models.js';
import { modelRouting } from './model-routing.js';
import { createImageSupport } from './task-images.js';
import { holdingOutput } from '../context/output-hold.js';
import { createWebTools, startMcpTools } from './outside-tools.js';
import { nodeLanguageService } from './workspace-language-service.js';

/**
 * The approver for this invocation: a terminal prompt when a human is at stdin (and not in
 * `--json` mode), otherwise one that denies and records every question.
 */
export function createApprover(context: CliContext): Approver {
  if (context.io.stdin.isTTY === true && !context.json) return holdingOutput(createTerminalApprover({ input: context.io.stdin, output: context.io.stderr }), context.io);
  return createNonInteractiveApprover();
}

/**
 * The memories of this invocation: `project` ones in the workspace's store, `user` ones in the
 * user's own database (`$XDG_DATA_HOME/dagent/memories.db`, else `~/.local/share/dagent/`),
 * opened on first use and closed with the invocation; until a user memory is added it is not created
 * (a search of a user folder with no database finds nothing without making one).
 */
export async function createMemoryStore(context: CliContext): Promise<ScopedMemoryStore> {
  const path = userMemoryDatabasePath(context.io.env);
  const openUser = async (): Promise<MemoryStore> => {
    const store = await openDatabase(path ?? ':memory:', { secrets: [...secretsFromEnvironment(context.io.env), ...secretsFromConfig(context.config)] });
    context.onClose(() => store.close());
    return new MemoryStore(store);
  };
  return new ScopedMemoryStore({ project: new MemoryStore(await context.store()), ...(path === undefined ? {} : { user: openUser, userExists: () => existsSync(path) }) });
}

/**
 * The default tools, the plan and team tools (`PLAN_TOOLS`), `remember` into the workspace's memory store, the web
 * tools, and (unless `mcp: false`) the tools of the configured MCP servers, started now for this
 * invocation's run and stopped when it ends.
 */
export async function createTools(context: CliContext, options: { mcp?: boolean } = {}): Promise<LocalToolRuntime> {
  const mcpTools = options.mcp === false ? [] : await startMcpTools(context);
  const confinement = createConfinement(context);
  const allowEnv = context.config.sandbox?.env;
  const hooks = context.config.hooks === undefined ? undefined : createHookRunner({ hooks: context.config.hooks, confinement: () => confinement, env: context.io.env, ...(allowEnv === undefined ? {} : { allowEnv }) });
  return createToolRuntime({
    tools: [...PLAN_TOOLS, createRememberTool(await createMemoryStore(context)), ...createWebTools(context), ...createSymbolTools((root) => nodeLanguageService(context, root)), ...mcpTools],
    runCommand: { env: context.io.env, confinement, ...(allowEnv === undefined ? {} : { allowEnv }) },
    ...(hooks === undefined ? {} : { hooks }),
    ...(context.config.approval === undefined ? {} : { approval: context.config.approval }),
    ...(context.config.toolApproval === undefined ? {} : { toolApproval: context.config.toolApproval }),
  });
}

/** Tools a node gets when the plan names none: its kind's set (kinds table) of the registered tools, MCP tools included, by their risk. */
export function defaultToolsFor(kind: PlanNodeKind, tools: LocalToolRuntime): readonly string[] {
  return toolSet(tools, nodeKind(kind).defaultTools);
}

/** The project memory files (AGENTS.md, DAGENT.md, …) as one static section, if there are any. */
export async function projectMemorySections(context: CliContext): Promise<PromptSection[]> {
  const section = projectMemorySection(await loadProjectMemory(context.workspace));
  return section === undefined ? [] : [section];
}

/**
 * Compaction for a node's model: threshold from its window, summaries by the summarizer model
 * (config `summarizerModel`), else by the small model when routing is on (`smallModel`), else by
 * the node's own model (`price`: its row of the price table), each summary priced with the model
 * that writes it.
 */
export function createNodeCompactor(context: CliContext, provider: ModelProvider, model: string, memory?: MemoryBank, options: { readonly smallModel?: string; readonly price?: (usage: Usage) => number } = {}): AgentCompactor {
  const summarizerId = context.config.summarizerModel ?? options.smallModel;
  const summarizer = summarizerId === undefined ? { provider, model, price: options.price } : (() => {
    const chosen = chooseModel(context, summarizerId);
    return { provider: chosen.provider as ModelProvider, model: chosen.provider.model, price: chosen.price };
  })();
  const compaction = context.config.compaction;
  const keyFacts = keyFactsToMemory(context, memory);
  return createCompactor({
    ...(keyFacts === undefined ? {} : { keyFacts }),
    window: provider.contextWindow(model),
    model: summarizer.model,
    ...(summarizer.price === undefined ? {} : { price: summarizer.price }),
    summarize: async (request, signal) => {
      const response = await callModel(summarizer.provider, request, { signal });
      return { text: response.content, usage: response.usage };
    },
    thresholds: {
      ...(compaction?.summaryReserve === undefined ? {} : { summaryReserveTokens: compaction.summaryReserve }),
      ...(compaction?.followUpReserve === undefined ? {} : { followUpReserveTokens: compaction.followUpReserve }),
      ...(compaction?.softWatermark === undefined ? {} : { softWatermarkRatio: compaction.softWatermark }),
    },
  });
}

/** Everything a node needs besides its own data: tools, approver, models (cached per id), memory. */
export async function createNodeRuntime(
  context: CliContext,
  options: { tools: LocalToolRuntime; approver: Approver; onPart?: (nodeId: string, part: StreamPart) => void; routing?: boolean; smallModel?: string },
): Promise<NodeRuntime> {
  // `smallModel`: the one the run recorded (a worker routes as the run decided), over this process's config.
  const routing = modelRouting(options.smallModel === undefined ? context.config : { ...context.config, smallModel: options.smallModel }, options.routing ?? true);
  const models = new Map<string, ResolvedModel>();
  const memory = await createMemoryStore(context);
  const sections = await projectMemorySections(context);
  return {
    workspace: context.workspace,
    tools: options.tools,
    ...(options.tools.hooks === undefined ? {} : { hooks: options.tools.hooks }),
    approver: options.approver,
    sections,
    contextsFor: (node, instruction): ContextProvider[] => [recallMemories(memory, { query: `${node.title}\n${instruction}` })],
    resolveModel(modelId, resolveOptions) {
      const id = modelId ?? modelIdFor(context, 'node');
      const fromPlan = resolveOptions?.fromPlan ?? modelId !== undefined;
      const key = `${fromPlan ? 'plan' : 'user'} ${id}`;
      let resolved = models.get(key);
      if (resolved === undefined) {
        const chosen = chooseModel(context, id, { fromPlan });
        resolved = { provider: chosen.provider, model: chosen.provider.model, price: chosen.price, compactor: createNodeCompactor(context, chosen.provider, chosen.provider.model, memory, { price: chosen.price, ...(routing === undefined ? {} : { smallModel: routing.smallModel }) }) };
        models.set(key, resolved);
      }
      return resolved;
    },
    ...(context.config.fallbackModels === undefined ? {} : { fallbackModels: context.config.fallbackModels }),
    ...(routing === undefined ? {} : { routing }),
    defaultTools: (kind) => defaultToolsFor(kind, options.tools),
    ...(context.config.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: context.config.toolBatchTimeoutMs }),
    ...(context.config.roles === undefined ? {} : { roles: context.config.roles }),
    ...(context.config.maxSteps === undefined && context.config.tokenBudget === undefined
      ? {}
      : { limits: { ...(context.config.maxSteps === undefined ? {} : { maxSteps: context.config.maxSteps }), ...(context.config.tokenBudget === undefined ? {} : { tokenBudget: context.config.tokenBudget }) } }),
    ...(options.onPart === undefined ? {} : { onPart: options.onPart }),
    images: createImageSupport(context),
  };
}
