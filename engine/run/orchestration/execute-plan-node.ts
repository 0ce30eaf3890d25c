import type { HookRunner } from '../../hooks/hook-runner.js';
import { preCompactHooks } from './node-hooks.js';
import type { AgentCompactor } from '../../agent/agent-compactor.js';
import { NodeSteering } from '../../agent/node-steering.js';
import { runAgent } from '../../agent/run-agent.js';
import type { ModelCallGate } from '../../agent/model-call-gate.js';
import type { AgentLimits } from '../../agent/stop-conditions.js';
import type { Approver, ToolResult, ToolRuntime, WriteScope } from '../../agent/tool-runtime.js';
import type { ImageSupport } from '../../context/image-references.js';
import type { StepPosition } from '../../context/runtime-context.js';
import { SystemPrompt, type ContextProvider, type PromptSection, type PromptSnapshot } from '../../context/system-prompt.js';
import { errorMessage } from '../../errors.js';
import type { ModelProvider, StreamPart, Usage } from '../../model/model-provider.js';
import { countPromptsAhead, estimateSystemTokens, estimateToolTokens, tokenizerWorking } from '../../model/token-estimate.js';
import { nodeKind } from '../../plan/node-kinds.js';
import type { Plan, PlanNode, PlanNodeKind } from '../../plan/plan-schema.js';
import { warmSecretShapes } from '../../secret-redactor.js';
import { warmEventChecks } from '../../session/event-types.js';
import type { Session } from '../../session/session.js';
import { commandFailure } from './command-failure.js';
import { recordPrompts } from '../../context/record-request.js';
import type { EventLog } from '../../session/event-log.js';
import { warmInsertStatements } from '../../session/event-inserts.js';
import { warmNodeProjection } from '../storage/node-projection.js';
import { NODE_SYSTEM_SECTIONS, nodeInstruction } from './node-prompt.js';
import type { NodeAction } from './node-outcome.js';
import { nodeModels, type ModelRouting, type RoleModels } from './node-models.js';
import { recordingActions } from './recording-actions.js';

export interface ResolvedModel {
  readonly provider: ModelProvider;
  readonly model: string;
  readonly price?: (usage: Usage) => number;
  readonly compactor?: AgentCompactor;
}

export interface RolePrompt extends RoleModels {
  readonly prompt: string;
}

/** Everything a node needs besides its own data; built once per run by the composition root. */
export interface NodeRuntime {
  readonly workspace: string;
  readonly tools: ToolRuntime;
  readonly approver: Approver;
  /**
   * A node's model override (`provider:model`), or the run's model when undefined. `fromPlan`:
   * the plan document names it (default: whenever an id is given).
   */
  resolveModel(modelId: string | undefined, options?: { readonly fromPlan?: boolean }): ResolvedModel;
  /** Models that take over when a node's model fails, for nodes and roles that list none (config `fallbackModels`). */
  readonly fallbackModels?: readonly string[];
  /** Small-model routing: nodes the plan marks `simple` that name no model run on `smallModel` (config; off with `--no-routing`). */
  readonly routing?: ModelRouting;
  readonly roles?: Readonly<Record<string, RolePrompt>>;
  /** More static sections for every node (e.g. project memory files). Shared byte for byte. */
  readonly sections?: readonly PromptSection[];
  readonly contexts?: readonly ContextProvider[];
  /** Dynamic contexts that depend on the node, e.g. long-term memories recalled for its instruction. */
  contextsFor?(node: PlanNode, instruction: string): readonly ContextProvider[];
  readonly limits?: Partial<AgentLimits>;
  readonly toolBatchTimeoutMs?: number;
  /** Tool names a node of this kind may use when the plan names none; undefined: every tool. */
  defaultTools(kind: PlanNodeKind): readonly string[] | undefined;
  readonly commandTimeoutMs?: number;
  readonly onPart?: (nodeId: string, part: StreamPart) => void;
  /** Where a node instruction's `@image` references are read (the workspace, through its guard). */
  readonly images?: ImageSupport;
  /** Configured hooks: `NodeStart` and `NodeEnd` run around each attempt (the tool runtime runs the tool hooks). */
  readonly hooks?: HookRunner;
  /** The run's budget, asked before every model call of a node (set by the run, not the composition root). */
  readonly gate?: ModelCallGate;
}

export interface NodeAttempt {
  readonly runId: string;
  readonly plan: Plan;
  readonly node: PlanNode;
  readonly attempt: number;
  /** A fresh surface for this attempt. */
  readonly session: Session;
  readonly handoffs: readonly string[];
  readonly writeScope: WriteScope;
  readonly signal: AbortSignal;
  /** After each completed step (all tool results in): the node checkpoints its files there. */
  readonly onStepEnd?: (position: StepPosition) => Promise<void>;
  /** The surface goes on from an interrupted attempt: which open calls run again, what the others say. */
  readonly resume?: { readonly rerunCalls: ReadonlySet<string>; readonly interruptedContent: string };
}

export type NodeAttemptResult =
  /** `actions`: the node's tool calls, for the checks of `unkeptPromise` once its changed files are known. */
  | { readonly status: 'succeeded'; readonly answer: string; readonly actions?: readonly NodeAction[] }
  | { readonly status: 'failed'; readonly error: string; readonly retryable: boolean };

export const DEFAULT_ROLES: Readonly<Record<string, RolePrompt>> = {
  coder: { prompt: 'Role: coder. You write small, correct changes that match the style of the code around them.' },
  reviewer: { prompt: 'Role: reviewer. You read changes critically and report concrete problems with file and line; you change nothing.' },
  tester: { prompt: 'Role: tester. You run and read tests, and say exactly which fail and why.' },
};

/** Runs one attempt of a plan node: a command directly, every other kind as a ReAct agent. */
export async function executePlanNode(runtime: NodeRuntime, attempt: NodeAttempt): Promise<NodeAttemptResult> {
  return nodeKind(attempt.node.kind).runsModel ? runAgentNode(runtime, attempt) : runCommandNode(runtime, attempt);
}

async function runAgentNode(runtime: NodeRuntime, attempt: NodeAttempt): Promise<NodeAttemptResult> {
  const { node } = attempt;
  const roles = { ...DEFAULT_ROLES, ...runtime.roles };
  const role = node.role === undefined ? undefined : roles[node.role];
  if (node.role !== undefined && role === undefined) {
    return { status: 'failed', error: `node ${node.id} names role "${node.role}", which is not configured (known: ${Object.keys(roles).join(', ')})`, retryable: false };
  }
  const models = nodeModels(node, role, runtime.fallbackModels, runtime.routing);
  const resolve = (id: string | undefined): ResolvedModel => runtime.resolveModel(id, { fromPlan: id !== undefined && models.fromPlan.has(id) });
  let model: ResolvedModel;
  try {
    model = resolve(models.primary);
  } catch (error) {
    return { status: 'failed', error: errorMessage(error), retryable: false };
  }
  if (models.routed && runtime.routing !== undefined && attempt.resume === undefined) {
    await attempt.session.append({ type: 'model/routed', turn: 1, step: 0, payload: { model: runtime.routing.smallModel, instead: runtime.routing.runModel, reason: 'simple' } });
  }
  const allowed = node.tools ?? runtime.defaultTools(node.kind);
  // The system prompt and the leading tools are the same for every node of the run, whatever its
  // role and kind: the prefix siblings share in the provider's cache. Node-specific parts (role,
  // instruction, handoffs, runtime context) all come after it, in the history.
  const prompt = nodeSystemPrompt(runtime, allowed);
  const task = nodeInstruction(attempt.plan, node);
  const instruction = role === undefined ? task : nodeInstruction(attempt.plan, node, role.prompt);
  for (const context of [...(runtime.contexts ?? []), ...(runtime.contextsFor?.(node, task) ?? [])]) prompt.addContext(context);

  const actions: NodeAction[] = [];
  const tools = recordingActions(runtime.tools, actions);
  const outcome = await runAgent({
    agent: `node:${node.id}`,
    session: attempt.session,
    prompt,
    provider: model.provider,
    model: model.model,
    tools,
    toolContext: {
      runId: attempt.runId,
      nodeId: node.id,
      workspace: runtime.workspace,
      approver: runtime.approver,
      writeScope: attempt.writeScope,
      planGrant: { edits: true },
      ...(allowed === undefined ? {} : { allowedTools: allowed }),
    },
    instruction,
    handoffs: attempt.handoffs,
    ...(runtime.images === undefined ? {} : { images: runtime.images }),
    limits: { ...runtime.limits, ...(node.maxSteps === undefined ? {} : { maxSteps: node.maxSteps }) },
    signal: attempt.signal,
    steering: new NodeSteering(attempt.session),
    ...(runtime.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: runtime.toolBatchTimeoutMs }),
    ...(model.compactor === undefined ? {} : { compactor: model.compactor }),
    ...(runtime.hooks?.matches('PreCompact', node.id) === true ? { beforeCompact: preCompactHooks({ hooks: runtime.hooks, runId: attempt.runId, nodeId: node.id, workspace: runtime.workspace, attempt: attempt.attempt, session: attempt.session, signal: attempt.signal, beforeCommand: async () => attempt.writeScope.beforeCommand?.() }) } : {}),
    ...(model.price === undefined ? {} : { price: model.price }),
    ...(models.fallbacks.length === 0 ? {} : { fallbacks: models.fallbacks.map((id) => ({ id, resolve: () => resolve(id) })) }),
    ...(runtime.onPart === undefined ? {} : { onPart: (part: StreamPart) => runtime.onPart?.(node.id, part) }),
    ...(runtime.gate === undefined ? {} : { gate: runtime.gate }),
    ...(attempt.onStepEnd === undefined ? {} : { onStepEnd: attempt.onStepEnd }),
    ...(attempt.resume === undefined ? {} : { resume: attempt.resume }),
  });
  switch (outcome.reason) {
    case 'done':
      return { status: 'succeeded', answer: outcome.answer, actions };
    case 'error':
    case 'context_overflow':
      return { status: 'failed', error: `${outcome.reason}: ${outcome.detail ?? ''}`.trim(), retryable: outcome.permanent !== true };
    default:
      return { status: 'failed', error: `${outcome.reason.replace('_', ' ')}: ${outcome.detail ?? ''}`.trim(), retryable: false };
  }
}

/**
 * A `command` node runs its command through the tool runtime (same checker, sandbox and limits),
 * no model. The approved plan grants the command itself; a command that reaches a remote is
 * still asked, through the run's approver.
 */
async function runCommandNode(runtime: NodeRuntime, attempt: NodeAttempt): Promise<NodeAttemptResult> {
  const { node, session } = attempt;
  const command = node.command ?? '';
  const call = { id: `${node.id}-attempt-${attempt.attempt}`, name: 'run_command', args: { command, ...(runtime.commandTimeoutMs === undefined ? {} : { timeout_ms: runtime.commandTimeoutMs }) } };
  const position = { turn: 1, step: 1 };
  await session.append({ type: 'user/message', ...position, step: 0, payload: { content: `Run \`${command}\` in the workspace.`, source: 'instruction' } });
  const result = await runtime.tools.execute(call, {
    runId: attempt.runId,
    nodeId: node.id,
    workspace: runtime.workspace,
    signal: attempt.signal,
    position,
    session,
    approver: runtime.approver,
    writeScope: attempt.writeScope,
    allowedTools: ['run_command'],
    planGrant: { command },
  });
  await session.append({
    type: 'tool/result',
    ...position,
    payload: { toolCallId: call.id, name: call.name, content: result.content, isError: result.isError, meta: { ...result.meta, args: call.args } },
  });
  if (!result.isError) return { status: 'succeeded', answer: result.content };
  const retryable = result.meta.outcome === 'timeout' || result.meta.outcome === 'error';
  return { status: 'failed', error: commandFailure(command, result, runtime.workspace), retryable: retryable && result.meta.exitCode === undefined };
}

/** A node's system prompt and tools, before its dynamic contexts: the same for every node with these tools. */
function nodeSystemPrompt(runtime: NodeRuntime, allowed: readonly string[] | undefined): SystemPrompt {
  const prompt = new SystemPrompt();
  for (const section of [...NODE_SYSTEM_SECTIONS, ...(runtime.sections ?? [])]) prompt.addSection(section);
  const shared = sharedTools(runtime, allowed);
  if (shared.length > 0) prompt.addTools('shared', () => runtime.tools.specs(shared));
  prompt.addTools('node', () => runtime.tools.specs(allowed));
  return prompt;
}

/**
 * Counts the tokens of the static prefix (system text, tool definitions) each model node of `plan`
 * will send, before the run starts: the counts are kept, and the first nodes no longer each wait
 * at their first step for the ~30 ms they take. Best effort: a failure is left for the node to meet.
 *
 * The counts wait for the tokenizer's tables when they still load in their thread (0.1–0.2 s of a
 * `dagent run`'s set-up), and are made there (20–30 ms more): that time goes to what the first
 * nodes would pay on first use, never past the moment the thread is done — the secret shapes'
 * patterns (`warmSecretShapes`), the statements of the run's first appends and settled nodes
 * (`warmInsertStatements`, `warmNodeProjection`), and the event checks (`warmEventChecks`), those
 * of a node's attempt first. Given the run's `log`, the prompts (system text and tools) the nodes
 * will send are recorded there first (`recordPrompts`): no node's first request carries them.
 */
export async function warmNodePrompts(
  runtime: NodeRuntime,
  plan: { readonly nodes: readonly Pick<PlanNode, 'kind' | 'tools'>[] },
  log?: EventLog,
): Promise<void> {
  let warmed = false;
  const warmWhileCounting = (): void => {
    if (!warmed && tokenizerWorking()) {
      warmed = true;
      warmSecretShapes();
      if (log !== undefined) {
        warmInsertStatements(log.db);
        warmNodeProjection(log.db);
      }
    }
    warmEventChecks(tokenizerWorking);
  };
  warmWhileCounting();
  const snapshots = await nodePromptSnapshots(runtime, plan);
  // Best effort too: a node records its prompt with its request when this did not.
  if (log !== undefined) await recordPrompts(log, snapshots).catch(() => undefined);
  const counting = countPromptsAhead(snapshots).catch(() => undefined);
  warmWhileCounting();
  await counting;
  try {
    for (const snapshot of snapshots) {
      estimateSystemTokens(snapshot.system);
      estimateToolTokens(snapshot.tools);
    }
  } catch {
    // The first step counts them again and meets the same failure.
  }
}

/**
 * Records in `log` the prompts (system text and tools) the model nodes of `plan` will send, and
 * nothing more: what a run dispatched to workers does before it starts (the workers count their
 * own tokens). A worker whose prompt is the same (the run's workspace, tools and config) finds it
 * recorded; one whose prompt differs records its own with its first request. Best effort.
 */
export async function recordNodePrompts(runtime: NodeRuntime, plan: { readonly nodes: readonly Pick<PlanNode, 'kind' | 'tools'>[] }, log: EventLog): Promise<void> {
  await recordPrompts(log, await nodePromptSnapshots(runtime, plan)).catch(() => undefined);
}

/** The system prompt and tools of each distinct tool set among the model nodes of `plan`. */
async function nodePromptSnapshots(runtime: NodeRuntime, plan: { readonly nodes: readonly Pick<PlanNode, 'kind' | 'tools'>[] }): Promise<PromptSnapshot[]> {
  const seen = new Set<string>();
  const snapshots: PromptSnapshot[] = [];
  for (const node of plan.nodes) {
    if (!nodeKind(node.kind).runsModel) continue;
    const allowed = node.tools ?? runtime.defaultTools(node.kind);
    const key = allowed === undefined ? '*' : allowed.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    // The node's own first step assembles its prompt and reports what is wrong.
    snapshots.push(...(await nodeSystemPrompt(runtime, allowed).assemble().then((snapshot) => [snapshot], () => [])));
  }
  return snapshots;
}

/**
 * The tools this node has that a read node has too: listed first, so nodes of every kind send the
 * same leading tool definitions (a read node's whole list, an edit node's first part).
 */
function sharedTools(runtime: NodeRuntime, allowed: readonly string[] | undefined): readonly string[] {
  const readTools = runtime.defaultTools('read');
  if (readTools === undefined) return [];
  return allowed === undefined ? readTools : readTools.filter((name) => allowed.includes(name));
}
