import type { Kysely } from 'kysely';
import {
  SystemPrompt,
  type AmendInput,
  type Approver,
  type CallModelOptions,
  type Database,
  type ModelParameters,
  type ModelProvider,
  type PlanInput,
  type Planner,
  type ReplanTrigger,
  type StreamPart,
  type ToolResult,
  type ToolRuntime,
  type Usage,
} from '../engine/index.js';
import { checkAppendAnswer, checkPlanAnswer, checkReplaceAnswer } from './llm-planner-answer.js';
import { runPlannerTurn, type PlannerAgent } from './llm-planner-turn.js';
import { PLANNER_TOOL_NAMES, plannerSystemSections } from './planner-prompt.js';
import { amendInstruction, planInstruction } from './planner-prompt-instruction.js';
import { DEFAULT_MAP_TOKEN_BUDGET, renderRepoMapPrompt } from './repo-map-prompt.js';
import { scanRepository, type RepoMap } from './repo-scan/index.js';

/** Repairs after the first answer before planning gives up. */
export const DEFAULT_MAX_REPAIRS = 3;

/** Model calls one planner attempt (the first answer, or one repair) may make, tool calls included. */
export const DEFAULT_PLANNER_MAX_STEPS = 20;

/** A repository map, or what makes one for a workspace (called anew for every plan and amendment). */
export type RepoMapSource = RepoMap | ((workspace: string, signal: AbortSignal) => Promise<RepoMap> | RepoMap);

export interface LlmPlannerOptions {
  readonly db: Kysely<Database>;
  /** The planner's model, configured apart from the nodes' (plan with the large one). */
  readonly provider: ModelProvider;
  readonly model: string;
  readonly parameters?: ModelParameters;
  /**
   * Where the planner's read-only tools come from; it may call only `list_files`, `read_file` and
   * `grep`, whatever else the runtime holds. Without it the planner plans from the map alone.
   */
  readonly tools?: ToolRuntime;
  /** Asked only if a tool wants approval (reads do not); default: deny everything. */
  readonly approver?: Approver;
  /** The project memory files' text: a static system section after the rules. */
  readonly projectMemory?: string;
  /** Default: `scanRepository(workspace)` for every plan and amendment. */
  readonly repoMap?: RepoMapSource;
  /** Tokens the repository map may take in the instruction; default `DEFAULT_MAP_TOKEN_BUDGET`. */
  readonly mapTokenBudget?: number;
  /** Default `DEFAULT_MAX_REPAIRS` (3). */
  readonly maxRepairs?: number;
  /** Per attempt; default `DEFAULT_PLANNER_MAX_STEPS`. */
  readonly maxSteps?: number;
  /** Input + output tokens one plan or amendment may spend, repairs included. */
  readonly tokenBudget?: number;
  /** USD for one call's usage (e.g. from `costOf` and the price table); zero when omitted. */
  readonly price?: (usage: Usage) => number;
  /** Every stream part as it arrives, for live display. */
  readonly onPart?: (part: StreamPart) => void;
  readonly callOptions?: Pick<CallModelOptions, 'retryPolicy' | 'sleep' | 'random'>;
}

/**
 * The LLM planner (SPEC §2.2): an agent with the id `planner` on the run's log. `plan()` gives it
 * the task, the files the task names (as paths, to read with its tools) and a repository map sized
 * to a token budget; its answer must be a plan document that passes the schema and the graph
 * checks, and an invalid one goes back with the exact errors, up to `maxRepairs` times. `amend()`
 * does the same for the replanning rules, with the current plan, the trigger and what is done, and
 * answers with new nodes (`append`) or a whole plan (`full`). Each call is one turn of the planner
 * (see `runPlannerTurn`); calls on one planner run one at a time. Failures throw
 * `PlanningFailedError`; every attempt stays in the log.
 */
export function createLlmPlanner(options: LlmPlannerOptions): Planner {
  const tools = options.tools;
  const prompt = new SystemPrompt();
  const sections = plannerSystemSections({ tools: tools !== undefined, ...(options.projectMemory === undefined ? {} : { projectMemory: options.projectMemory }) });
  for (const section of sections) prompt.addSection(section);
  if (tools !== undefined) prompt.addTools('planner', () => tools.specs(PLANNER_TOOL_NAMES));
  const agent: PlannerAgent = {
    db: options.db,
    provider: options.provider,
    model: options.model,
    prompt,
    tools: tools ?? NO_TOOLS,
    allowedTools: tools === undefined ? [] : PLANNER_TOOL_NAMES,
    approver: options.approver ?? DENY_ALL,
    maxRepairs: options.maxRepairs ?? DEFAULT_MAX_REPAIRS,
    maxSteps: options.maxSteps ?? DEFAULT_PLANNER_MAX_STEPS,
    ...(options.tokenBudget === undefined ? {} : { limits: { tokenBudget: options.tokenBudget } }),
    ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
    ...(options.price === undefined ? {} : { price: options.price }),
    ...(options.onPart === undefined ? {} : { onPart: options.onPart }),
    ...(options.callOptions === undefined ? {} : { callOptions: options.callOptions }),
  };
  const budgetTokens = options.mapTokenBudget ?? DEFAULT_MAP_TOKEN_BUDGET;
  const mapText = async (workspace: string, focus: string, paths: readonly string[], signal: AbortSignal): Promise<string> => {
    const source = options.repoMap ?? ((root: string, scanSignal: AbortSignal) => scanRepository(root, { signal: scanSignal }));
    const map = typeof source === 'function' ? await source(workspace, signal) : source;
    return renderRepoMapPrompt(map, { budgetTokens, focus, paths }).text;
  };
  const serialize = createSerializer();

  return {
    plan: (input: PlanInput) =>
      serialize(async () => {
        const map = await mapText(input.workspace, input.task, input.paths, input.signal);
        return runPlannerTurn(agent, {
          runId: input.runId,
          workspace: input.workspace,
          operation: 'plan',
          instruction: planInstruction({ task: input.task, paths: input.paths, map, tools: tools !== undefined }),
          shape: 'plan',
          check: (answer) => checkPlanAnswer(answer, input.rules),
          signal: input.signal,
          ...(input.gate === undefined ? {} : { gate: input.gate }),
        });
      }),
    amend: (input: AmendInput) =>
      serialize(async () => {
        const trigger = input.trigger;
        const map = await mapText(input.workspace, `${input.task}\n${triggerFocus(trigger)}`, trigger.kind === 'missed-work' ? trigger.files : [], input.signal);
        const context = { plan: input.plan, trigger, completed: input.completed.map((node) => node.nodeId), rules: input.rules };
        return runPlannerTurn(agent, {
          runId: input.runId,
          workspace: input.workspace,
          operation: 'amend',
          instruction: amendInstruction({ task: input.task, plan: input.plan, mode: input.mode, trigger, completed: input.completed, map }),
          shape: input.mode === 'append' ? 'append' : 'plan',
          check: (answer) => (input.mode === 'append' ? checkAppendAnswer(answer, context) : checkReplaceAnswer(answer, context)),
          signal: input.signal,
          ...(input.gate === undefined ? {} : { gate: input.gate }),
        });
      }),
  };
}

function triggerFocus(trigger: ReplanTrigger): string {
  return trigger.kind === 'failure' ? trigger.error : `${trigger.title}\n${trigger.files.join(' ')}\n${trigger.reason}`;
}

/** Runs one piece of work at a time, in call order: a planner's turns must not interleave on its surface. */
function createSerializer(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };
}

const DENY_ALL: Approver = { interactive: false, ask: async () => ({ decision: 'no', reason: 'the planner only reads' }) };

/** The tool runtime of a planner without tools: it offers none and refuses any call. */
const NO_TOOLS: ToolRuntime = {
  specs: () => [],
  execute: async (call): Promise<ToolResult> => {
    const content = `unknown tool "${call.name}": the planner has no tools; answer with the plan`;
    return { content, isError: true, meta: { outcome: 'unknown-tool', truncated: false, originalLength: content.length, durationMs: 0 } };
  },
};
