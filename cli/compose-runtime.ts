import type { Approver, NodeRuntime, PlanNodeKind, ResolvedModel, StreamPart } from '../engine/index.js';
import { DEFAULT_TOOL_NAMES, READ_ONLY_TOOL_NAMES, createNonInteractiveApprover, createTerminalApprover, createToolRuntime, type LocalToolRuntime } from '../tools/index.js';
import { reportMissingWorkTool } from '../tools/report-missing-work.js';
import type { CliContext } from './cli-context.js';
import { chooseModel, modelIdFor } from './models.js';

/**
 * The approver for this invocation: a terminal prompt when a human is at stdin (and not in
 * `--json` mode), otherwise one that denies and records every question.
 */
export function createApprover(context: CliContext): Approver {
  if (context.io.stdin.isTTY === true && !context.json) return createTerminalApprover({ input: context.io.stdin, output: context.io.stderr });
  return createNonInteractiveApprover();
}

export function createTools(context: CliContext): LocalToolRuntime {
  return createToolRuntime({
    tools: [reportMissingWorkTool],
    ...(context.config.approval === undefined ? {} : { approval: context.config.approval }),
    ...(context.config.toolApproval === undefined ? {} : { toolApproval: context.config.toolApproval }),
  });
}

const READ_TOOLS: readonly string[] = [...READ_ONLY_TOOL_NAMES, 'report_missing_work'];
const ALL_TOOLS: readonly string[] = [...DEFAULT_TOOL_NAMES, 'report_missing_work'];

/** Tools a node gets when the plan names none: reads for `read` nodes, everything else for the rest. */
export function defaultToolsFor(kind: PlanNodeKind): readonly string[] {
  return kind === 'read' ? READ_TOOLS : ALL_TOOLS;
}

/** Everything a node needs besides its own data: tools, approver, models (cached per id). */
export function createNodeRuntime(context: CliContext, options: { tools: LocalToolRuntime; approver: Approver; onPart?: (nodeId: string, part: StreamPart) => void }): NodeRuntime {
  const models = new Map<string, ResolvedModel>();
  const defaultModel = context.config.model;
  return {
    workspace: context.workspace,
    tools: options.tools,
    approver: options.approver,
    resolveModel(modelId) {
      const id = modelId ?? defaultModel ?? modelIdFor(context, 'node');
      let resolved = models.get(id);
      if (resolved === undefined) {
        const chosen = chooseModel(context, id);
        resolved = { provider: chosen.provider, model: chosen.provider.model, price: chosen.price };
        models.set(id, resolved);
      }
      return resolved;
    },
    defaultTools: defaultToolsFor,
    ...(context.config.roles === undefined ? {} : { roles: context.config.roles }),
    ...(context.config.maxSteps === undefined && context.config.tokenBudget === undefined
      ? {}
      : { limits: { ...(context.config.maxSteps === undefined ? {} : { maxSteps: context.config.maxSteps }), ...(context.config.tokenBudget === undefined ? {} : { tokenBudget: context.config.tokenBudget }) } }),
    ...(options.onPart === undefined ? {} : { onPart: options.onPart }),
  };
}
