import type { AgentCompactor } from '../../agent/agent-compactor.js';
import { runAgent, type AgentOutcome } from '../../agent/run-agent.js';
import type { AgentLimits } from '../../agent/stop-conditions.js';
import type { Approver, ToolRuntime } from '../../agent/tool-runtime.js';
import type { ImageSupport } from '../../context/image-references.js';
import { SystemPrompt, type ContextProvider, type PromptSection } from '../../context/system-prompt.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { errorMessage } from '../../errors.js';
import type { ModelProvider, StreamPart, Usage } from '../../model/model-provider.js';
import type { NodeTransition } from '../../scheduler/node-transition.js';
import type { EventLog } from '../../session/event-log.js';
import { runLog } from '../../session/run-log.js';
import { Session } from '../../session/session.js';
import { endRun, type RunEnding } from '../storage/end-run.js';
import { nodeTransitionDrafts } from '../storage/node-projection.js';
import { createRun } from '../storage/run-store.js';
import type { NodeFiles } from './node-files.js';
import { unkeptPromise, type NodeAction, type UnkeptPromise } from './node-outcome.js';
import { recordingActions } from './recording-actions.js';

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

/** What a react run's agent may write: anywhere in the workspace (the path guard keeps it there). */
export const REACT_WRITES: readonly string[] = ['**'];

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
  /**
   * The run's file snapshots, made once the run has its id (`FileSnapshots` on the workspace): the
   * agent's changes are recorded as a plan node's are, so `diff` and `revert` take them.
   */
  readonly files: (runId: string) => NodeFiles;
  /** Stored with the run: its model, which `report` and its reproduce line name. */
  readonly config?: Readonly<Record<string, unknown>>;
}

export interface ReactRunResult {
  readonly runId: string;
  /** How the run ended, as stored: `cancelled` when its signal stopped the agent. */
  readonly status: ReactEnding['status'];
  readonly outcome: AgentOutcome;
  /** The files the agent changed, by its tools or its commands, sorted. */
  readonly filesChanged: readonly string[];
  /** Why an agent that said it was done did not keep its promise (a denied write, …): the run failed, as a plan node would. */
  readonly unkept?: UnkeptPromise;
}

type ReactAttempt = Omit<ReactRunResult, 'runId' | 'status'>;

/**
 * A react run (SPEC §2.6, the one-agent mode): creates the run and runs one ReAct agent on the
 * task as its one node, `react`. The node lives in the log as a plan node does (`node/started`,
 * its boundary in `node/snapshotted`, `node/succeeded` with the files it changed, or
 * `node/failed`), so `status`, `report` and the trace fold it as one; its writes go through the
 * snapshots' write scope and its end finds what its commands changed, so `diff` and `revert` take
 * the change. The run succeeds when the agent is done and kept its promise (`unkeptPromise`, the
 * check a plan node passes: a denied write fails it), and fails otherwise.
 */
export async function executeReactRun(options: ExecuteReactRunOptions): Promise<ReactRunResult> {
  const run = await createRun(options.db, { task: options.task, workspace: options.workspace, mode: 'react', status: 'running', ...(options.config === undefined ? {} : { config: options.config }) });
  await options.onStart?.(run.id);
  const log = runLog(options.db, run.id);
  await log.append({ type: 'run/started', payload: { pid: process.pid } });
  const files = options.files(run.id);
  try {
    const attempt = await attemptReact(options, run.id, log, files);
    const ending = reactEnding(attempt, options.signal);
    await log.appendMany(nodeTransitionDrafts([settled(ending, attempt)], describeResult));
    await endRun(options.db, run.id, ending, log);
    return { runId: run.id, status: ending.status, ...attempt };
  } catch (error) {
    // A fault of the store or the files: the run ends failed, not running without a process.
    await endRun(options.db, run.id, { status: 'failed', error: errorMessage(error) }, log).catch(() => undefined);
    throw error;
  } finally {
    await files.close?.();
  }
}

/** The agent's one attempt, between its node's boundary and its end, as `attemptNode` runs a plan node's. */
async function attemptReact(options: ExecuteReactRunOptions, runId: string, log: EventLog, files: NodeFiles): Promise<ReactAttempt> {
  await log.appendMany(nodeTransitionDrafts([{ kind: 'started', nodeId: REACT_NODE_ID, from: 'pending', to: 'running', attempts: 1 }], describeResult));
  const boundary = await files.beginNode(REACT_NODE_ID, REACT_WRITES);
  // The marker goes with the agent's first append (its instruction), before any tool can touch a file.
  const session = Session.opening(log, { type: 'node/snapshotted', nodeId: REACT_NODE_ID, turn: 1, payload: { attempt: 1, boundary } }, { firstOfNode: true });
  const prompt = new SystemPrompt().addTools('all', () => options.tools.specs(options.allowedTools));
  for (const section of [...REACT_SYSTEM_SECTIONS, ...(options.sections ?? [])]) prompt.addSection(section);
  for (const context of options.contexts ?? []) prompt.addContext(context);
  const actions: NodeAction[] = [];
  let outcome: AgentOutcome;
  try {
    outcome = await runAgent({
      agent: 'react',
      session,
      prompt,
      provider: options.provider,
      model: options.model,
      tools: recordingActions(options.tools, actions),
      toolContext: {
        runId,
        nodeId: REACT_NODE_ID,
        workspace: options.workspace,
        approver: options.approver,
        writeScope: files.writeScopeFor(REACT_NODE_ID, REACT_WRITES),
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
  // An agent that appended nothing (it failed before its instruction) stores its marker now.
  await log.release(REACT_NODE_ID);
  const { filesChanged } = await files.endNode(REACT_NODE_ID, REACT_WRITES, boundary, { firstAttempt: true });
  const unkept = outcome.reason === 'done' ? unkeptPromise({ nodeId: REACT_NODE_ID, kind: 'agent', actions, filesChanged, writes: REACT_WRITES }) : undefined;
  return { outcome, filesChanged, ...(unkept === undefined ? {} : { unkept }) };
}

type ReactEnding = Extract<RunEnding, { readonly status: 'succeeded' | 'failed' | 'cancelled' }>;

/**
 * Succeeded when the agent is done and kept its promise; cancelled when the run's signal stopped
 * it (Ctrl-C, SIGTERM, `dagent cancel`), as a plan run's interrupt ends it; failed with why otherwise.
 */
function reactEnding({ outcome, unkept }: ReactAttempt, signal: AbortSignal): ReactEnding {
  if (outcome.reason === 'aborted' && signal.aborted) return { status: 'cancelled', reason: errorMessage(signal.reason) };
  if (outcome.reason !== 'done') return { status: 'failed', error: `${outcome.reason}: ${outcome.detail ?? ''}` };
  if (unkept !== undefined) return { status: 'failed', error: unkept.error };
  return { status: 'succeeded', result: outcome.answer };
}

interface ReactResult {
  readonly answer: string;
  readonly filesChanged: readonly string[];
}

/** The node's transition at the run's end: the run's own outcome. */
function settled(ending: ReactEnding, attempt: ReactAttempt): NodeTransition<ReactResult> {
  const base = { nodeId: REACT_NODE_ID, from: 'running', attempts: 1 } as const;
  if (ending.status === 'succeeded') return { ...base, kind: 'succeeded', to: 'succeeded', result: { answer: attempt.outcome.answer, filesChanged: attempt.filesChanged } };
  if (ending.status === 'cancelled') return { ...base, kind: 'cancelled', to: 'cancelled', reason: ending.reason };
  return { ...base, kind: 'failed', to: 'failed', error: ending.error, ...(attempt.unkept?.waitsFor === undefined ? {} : { waitsFor: attempt.unkept.waitsFor }) };
}

function describeResult(result: ReactResult): { result: string; filesChanged: readonly string[] } {
  return { result: result.answer, filesChanged: result.filesChanged };
}
