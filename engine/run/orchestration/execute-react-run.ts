import type { AgentCompactor } from '../../agent/agent-compactor.js';
import { runAgent, type AgentOutcome } from '../../agent/run-agent.js';
import type { AgentLimits } from '../../agent/stop-conditions.js';
import type { Approver, ToolRuntime } from '../../agent/tool-runtime.js';
import type { ImageSupport } from '../../context/image-references.js';
import { SystemPrompt, type ContextProvider, type PromptSection } from '../../context/system-prompt.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import type { ModelProvider, StreamPart, Usage } from '../../model/model-provider.js';
import { runLog } from '../../session/run-log.js';
import { Session } from '../../session/session.js';
import { endRun } from '../storage/end-run.js';
import { createRun } from '../storage/run-store.js';

/** The static system prompt of a plain ReAct agent. */
export const REACT_SYSTEM_SECTIONS: readonly PromptSection[] = [
  {
    id: 'identity',
    order: 0,
    text: 'You are a coding agent working in a repository. You have tools to list, read, search and change files and to run commands in the workspace.',
  },
  {
    id: 'rules',
    order: 10,
    text: [
      'Rules:',
      '- Look before you change: read a file before you edit it; prefer edit_file with an exact, unique old_string.',
      '- Paths are relative to the workspace root; never try to leave it.',
      '- A tool error is information: read it and adapt. If the user rejects an operation, take another approach.',
      '- When the task is done, answer without calling tools: say what you did and which files changed.',
    ].join('\n'),
  },
];

/** The node id of a react run's one agent in the log (`dagent inspect <run> --node react`). */
export const REACT_NODE_ID = 'react';

export interface ExecuteReactRunOptions {
  readonly db: Kysely<Database>;
  readonly task: string;
  readonly workspace: string;
  readonly provider: ModelProvider;
  readonly model: string;
  readonly tools: ToolRuntime;
  readonly allowedTools?: readonly string[];
  readonly approver: Approver;
  /** More static sections (project memory files), after the agent's own. */
  readonly sections?: readonly PromptSection[];
  readonly contexts?: readonly ContextProvider[];
  readonly compactor?: AgentCompactor;
  readonly price?: (usage: Usage) => number;
  readonly limits?: Partial<AgentLimits>;
  readonly toolBatchTimeoutMs?: number;
  readonly signal: AbortSignal;
  readonly onPart?: (part: StreamPart) => void;
  /** Where the task's `@image` references are read (the workspace, through its guard). */
  readonly images?: ImageSupport;
  /** Told the run id as soon as the run exists, before it starts (awaited: live tracing begins here). */
  readonly onStart?: (runId: string) => void | Promise<void>;
}

/**
 * A react run (SPEC §2.6, the one-agent mode): creates the run, runs one ReAct agent on the task
 * with the node id `react`, and ends the run succeeded when the agent is done, failed otherwise.
 */
export async function executeReactRun(options: ExecuteReactRunOptions): Promise<{ runId: string; outcome: AgentOutcome }> {
  const run = await createRun(options.db, { task: options.task, workspace: options.workspace, mode: 'react', status: 'running' });
  await options.onStart?.(run.id);
  const log = runLog(options.db, run.id);
  await log.append({ type: 'run/started', payload: { pid: process.pid } });
  const prompt = new SystemPrompt().addTools('all', () => options.tools.specs(options.allowedTools));
  for (const section of [...REACT_SYSTEM_SECTIONS, ...(options.sections ?? [])]) prompt.addSection(section);
  for (const context of options.contexts ?? []) prompt.addContext(context);
  const session = await Session.open(log, REACT_NODE_ID);
  let outcome: AgentOutcome;
  try {
    outcome = await runAgent({
      agent: 'react',
      session,
      prompt,
      provider: options.provider,
      model: options.model,
      tools: options.tools,
      toolContext: {
        runId: run.id,
        nodeId: REACT_NODE_ID,
        workspace: options.workspace,
        approver: options.approver,
        ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
      },
      instruction: options.task,
      ...(options.images === undefined ? {} : { images: options.images }),
      signal: options.signal,
      ...(options.compactor === undefined ? {} : { compactor: options.compactor }),
      ...(options.price === undefined ? {} : { price: options.price }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: options.toolBatchTimeoutMs }),
      ...(options.onPart === undefined ? {} : { onPart: options.onPart }),
    });
  } finally {
    session.close();
  }
  const ending = outcome.reason === 'done' ? { status: 'succeeded' as const, result: outcome.answer } : { status: 'failed' as const, error: `${outcome.reason}: ${outcome.detail ?? ''}` };
  await endRun(options.db, run.id, ending, log);
  return { runId: run.id, outcome };
}
