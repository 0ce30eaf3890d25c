import { canonicalJson } from '../canonical-json.js';
import type { ModelMessage } from '../model/model-message.js';
import type { EndReason } from './end-reason.js';

export interface AgentLimits {
  /** Model calls a node may make. */
  readonly maxSteps: number;
  /** Input + output tokens a node may spend, over all its model calls. */
  readonly tokenBudget: number;
  /** The same tool call (same name and arguments) this many times in a row stops the agent. */
  readonly loopRepeats: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = { maxSteps: 40, tokenBudget: 2_000_000, loopRepeats: 3 };

export interface StopInput {
  readonly stepsTaken: number;
  readonly tokensSpent: number;
  readonly messages: readonly ModelMessage[];
  /** Why the agent's signal was aborted (`abortedBecause`), when it was. */
  readonly aborted?: string;
}

export interface StopVerdict {
  readonly reason: Exclude<EndReason, 'done' | 'context_overflow' | 'error'>;
  readonly detail: string;
}

/**
 * The exit conditions checked before every model call, as pure predicates over what the log
 * holds, so a resumed agent stops for the same reasons. Undefined: go on.
 */
export function checkStopConditions(input: StopInput, limits: AgentLimits): StopVerdict | undefined {
  if (input.aborted !== undefined) return { reason: 'aborted', detail: input.aborted };
  if (input.tokensSpent >= limits.tokenBudget) {
    return { reason: 'token_budget', detail: `spent ${input.tokensSpent} tokens of a budget of ${limits.tokenBudget}` };
  }
  if (input.stepsTaken >= limits.maxSteps) return { reason: 'max_steps', detail: `reached the limit of ${limits.maxSteps} model calls` };
  const repeated = repeatedToolCall(input.messages, limits.loopRepeats);
  if (repeated !== undefined) {
    return { reason: 'loop_detected', detail: `the same call ${repeated} came ${limits.loopRepeats} times in a row` };
  }
  return undefined;
}

/**
 * The tool call signature repeated in each of the last `times` assistant messages, if any.
 * A message's signature is the sorted set of its calls' names and canonical arguments.
 */
export function repeatedToolCall(messages: readonly ModelMessage[], times: number): string | undefined {
  const signatures: string[] = [];
  for (let index = messages.length - 1; index >= 0 && signatures.length < times; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant') continue;
    if (message.toolCalls.length === 0) return undefined;
    signatures.push(
      message.toolCalls
        .map((call) => `${call.name}(${canonicalJson(call.args)})`)
        .sort()
        .join(' + '),
    );
  }
  if (signatures.length < times) return undefined;
  return signatures.every((signature) => signature === signatures[0]) ? signatures[0] : undefined;
}

/**
 * Why `signal` was aborted, for the node's outcome and the person reading it: the reason it was
 * aborted with (a cancel from the dashboard, a worker's claim that ran out, a budget reached), or
 * that the run was cancelled when none was given.
 */
export function abortedBecause(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '' ? reason.message : 'the run was cancelled';
}
