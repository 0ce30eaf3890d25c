import type { Kysely } from 'kysely';
import {
  type EventLog,
  runLog,
  Session,
  runAgent,
  type AgentLimits,
  type Approver,
  type CallModelOptions,
  type Database,
  type ModelCallGate,
  type ModelParameters,
  type ModelProvider,
  type PlanIssue,
  type StreamPart,
  type SystemPrompt,
  type ToolRuntime,
  type Usage,
} from '../engine/index.js';
import { PLANNER_NODE_ID, type AnswerCheck } from './llm-planner-answer.js';
import { PlanningFailedError } from './llm-planner-errors.js';
import { repairMessage } from './planner-prompt-instruction.js';

/** Everything a planner turn needs that does not change between turns; built once per planner. */
export interface PlannerAgent {
  readonly db: Kysely<Database>;
  readonly provider: ModelProvider;
  readonly model: string;
  readonly parameters?: ModelParameters;
  readonly prompt: SystemPrompt;
  readonly tools: ToolRuntime;
  readonly allowedTools: readonly string[];
  readonly approver: Approver;
  readonly maxRepairs: number;
  /** Model calls one attempt (the first answer, or one repair) may make. */
  readonly maxSteps: number;
  readonly limits?: Partial<Pick<AgentLimits, 'tokenBudget' | 'loopRepeats'>>;
  readonly price?: (usage: Usage) => number;
  readonly onPart?: (part: StreamPart) => void;
  readonly callOptions?: Pick<CallModelOptions, 'retryPolicy' | 'sleep' | 'random'>;
}

/** One request to the planner: an instruction, and how its answer is checked. */
export interface PlannerTurn<T> {
  readonly runId: string;
  readonly workspace: string;
  readonly operation: 'plan' | 'amend';
  readonly instruction: string;
  /** What a repair asks for: the whole plan again, or the append patch. */
  readonly shape: 'plan' | 'append';
  check(answer: string): AnswerCheck<T>;
  readonly signal: AbortSignal;
  /** The run's budget, asked before each model call of the turn (a replan during a run under one). */
  readonly gate?: ModelCallGate;
}

/**
 * One turn of the planner on the run's log, under node `planner`: the instruction is appended
 * first, and the turn's surface starts at it, so the model sees this turn only (earlier turns stay
 * in the log). The turn number is one past the planner's last; steps go on counting from the last
 * step of the planner's earlier turns, so `dagent inspect <run> --node planner --step N` names
 * exactly one request. The planner agent runs (`runAgent`: assemble, append, derive, build,
 * record, call); its final answer is checked; an invalid answer gets a `note` message with the
 * exact errors and the agent runs again, up to `maxRepairs` times. Throws `PlanningFailedError`
 * when no answer passes or the agent stops early; rethrows the abort reason when cancelled.
 */
export async function runPlannerTurn<T>(agent: PlannerAgent, turn: PlannerTurn<T>): Promise<T> {
  const { signal } = turn;
  signal.throwIfAborted();
  const log = runLog(agent.db, turn.runId);
  const position = await nextTurnPosition(log);
  const instruction = await log.append({
    type: 'user/message',
    nodeId: PLANNER_NODE_ID,
    ...position,
    payload: { content: turn.instruction, source: 'instruction' },
  });
  const session = await Session.open(log, PLANNER_NODE_ID, { fromSeq: instruction.seq });
  try {
    let issues: readonly PlanIssue[] = [];
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await runAgent({
        agent: 'planner',
        session,
        prompt: agent.prompt,
        provider: agent.provider,
        model: agent.model,
        tools: agent.tools,
        toolContext: { runId: turn.runId, nodeId: PLANNER_NODE_ID, workspace: turn.workspace, approver: agent.approver, allowedTools: agent.allowedTools },
        instruction: turn.instruction,
        turn: position.turn,
        limits: { ...agent.limits, maxSteps: session.lastStep + agent.maxSteps },
        signal,
        ...(agent.parameters === undefined ? {} : { parameters: agent.parameters }),
        ...(agent.price === undefined ? {} : { price: agent.price }),
        ...(agent.onPart === undefined ? {} : { onPart: agent.onPart }),
        ...(agent.callOptions === undefined ? {} : { callOptions: agent.callOptions }),
        ...(turn.gate === undefined ? {} : { gate: turn.gate }),
      });
      if (outcome.reason !== 'done') {
        signal.throwIfAborted();
        throw new PlanningFailedError({
          runId: turn.runId,
          operation: turn.operation,
          attempts: attempt,
          issues,
          stopped: { reason: outcome.reason, ...(outcome.detail === undefined ? {} : { detail: outcome.detail }) },
        });
      }
      const check = turn.check(finalAnswer(session));
      if (check.ok) return check.value;
      issues = check.issues;
      if (attempt > agent.maxRepairs) throw new PlanningFailedError({ runId: turn.runId, operation: turn.operation, attempts: attempt, issues });
      await session.append({
        type: 'user/message',
        turn: position.turn,
        step: session.lastStep,
        payload: { content: repairMessage({ issues, repair: attempt, maxRepairs: agent.maxRepairs, shape: turn.shape }), source: 'note' },
      });
    }
  } finally {
    session.close();
  }
}

/** The next turn of the planner's node, at the step its last turn ended on. */
async function nextTurnPosition(log: EventLog): Promise<{ turn: number; step: number }> {
  let turn = 0;
  let step = 0;
  for (const event of await log.read({ nodeId: PLANNER_NODE_ID })) {
    turn = Math.max(turn, event.turn);
    step = Math.max(step, event.step);
  }
  return { turn: turn + 1, step };
}

/** The text of the last assistant message of the turn, as the log holds it. */
function finalAnswer(session: Session): string {
  const surface = session.surface();
  for (let index = surface.length - 1; index >= 0; index -= 1) {
    const event = surface[index]!;
    if (event.type === 'assistant/message') return event.payload.content;
  }
  return '';
}
