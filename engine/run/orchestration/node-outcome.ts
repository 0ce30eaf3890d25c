import { nodeKind } from '../../plan/node-kinds.js';
import type { PlanNodeKind } from '../../plan/plan-schema.js';
import type { NodeWaitsFor } from '../../scheduler/schedulable-node.js';

/** One tool call of a node as far as its outcome goes: what it was, how risky, how it ended. */
export interface NodeAction {
  readonly tool: string;
  /** The tool's risk (`read`, `write`, `command`, `network`); absent for calls that never reached a tool. */
  readonly risk?: string;
  readonly outcome: string;
  /** The first line of what the node was told (`the user rejected this operation …: write_file a.ts`). */
  readonly summary: string;
  /** For the human: what lets a call denied for want of a terminal through (the tool result's `humanNextStep`). */
  readonly humanNextStep?: string;
  /** The call was denied with no one there to approve it (the tool result's `waitsFor`). */
  readonly waitsFor?: NodeWaitsFor;
}

export interface NodeOutcomeInput {
  readonly nodeId: string;
  readonly kind: PlanNodeKind;
  readonly actions: readonly NodeAction[];
  readonly filesChanged: readonly string[];
  readonly writes: readonly string[];
}

const RISKY: ReadonlySet<string> = new Set(['write', 'command', 'network']);
const STOPPED: ReadonlySet<string> = new Set(['denied', 'refused']);

/** A node that has not kept its promise: why, and what it waits for when the stopping call was denied for want of a human. */
export interface UnkeptPromise {
  readonly error: string;
  readonly waitsFor?: NodeWaitsFor;
}

/**
 * Why a node that says it is done has not kept its promise, or undefined when it has. Pure.
 * - A write that was denied fails the node: the change it was asked for is not all there.
 * - A node whose every risky action (write, command, network) was denied or refused did nothing it set out to do.
 * - A node of a kind that always writes (an edit) that changed no file did not do its work.
 * The first line names what went wrong, so progress lines and `status` can show it whole; when the
 * call it names was denied with no one there to approve it, `waitsFor` says so (no replan can help).
 */
export function unkeptPromise(input: NodeOutcomeInput): UnkeptPromise | undefined {
  const deniedWrite = input.actions.find((action) => action.risk === 'write' && action.outcome === 'denied');
  if (deniedWrite !== undefined) return stoppedBy(`a write was denied: ${deniedWrite.humanNextStep ?? deniedWrite.summary}`, deniedWrite);
  const risky = input.actions.filter((action) => action.risk !== undefined && RISKY.has(action.risk));
  if (risky.length > 0 && risky.every((action) => STOPPED.has(action.outcome))) {
    const last = risky[risky.length - 1]!;
    return stoppedBy(`every risky action was denied (${risky.length}): ${last.humanNextStep ?? last.summary}`, last);
  }
  if (nodeKind(input.kind).writes === 'always' && input.filesChanged.length === 0) {
    const writes = input.writes.length === 0 ? 'it declares no writes' : `its writes: ${input.writes.join(', ')}`;
    return { error: `${input.kind} node ${input.nodeId} ended without changing any file (${writes})` };
  }
  return undefined;
}

function stoppedBy(error: string, action: NodeAction): UnkeptPromise {
  return action.waitsFor === undefined ? { error } : { error, waitsFor: action.waitsFor };
}

/** The words every denial for want of a terminal carries in its `humanNextStep` (tools build it; only messages use it, decisions read `waitsFor`). */
export const NO_TERMINAL_DENIAL = 'was denied: there was no terminal to ask for approval';
