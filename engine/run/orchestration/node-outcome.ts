import { nodeKind } from '../../plan/node-kinds.js';
import type { PlanNodeKind } from '../../plan/plan-schema.js';

/** One tool call of a node as far as its outcome goes: what it was, how risky, how it ended. */
export interface NodeAction {
  readonly tool: string;
  /** The tool's risk (`read`, `write`, `command`, `network`); absent for calls that never reached a tool. */
  readonly risk?: string;
  readonly outcome: string;
  /** The first line of what the node was told (`the user rejected this operation …: write_file a.ts`). */
  readonly summary: string;
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

/**
 * Why a node that says it is done has not kept its promise, or undefined when it has. Pure.
 * - A write that was denied fails the node: the change it was asked for is not all there.
 * - A node whose every risky action (write, command, network) was denied or refused did nothing it set out to do.
 * - A node of a kind that always writes (an edit) that changed no file did not do its work.
 * The first line names what went wrong, so progress lines and `status` can show it whole.
 */
export function unkeptPromise(input: NodeOutcomeInput): string | undefined {
  const deniedWrite = input.actions.find((action) => action.risk === 'write' && action.outcome === 'denied');
  if (deniedWrite !== undefined) return `a write was denied: ${deniedWrite.summary}`;
  const risky = input.actions.filter((action) => action.risk !== undefined && RISKY.has(action.risk));
  if (risky.length > 0 && risky.every((action) => STOPPED.has(action.outcome))) {
    return `every risky action was denied (${risky.length}): ${risky[risky.length - 1]!.summary}`;
  }
  if (nodeKind(input.kind).writes === 'always' && input.filesChanged.length === 0) {
    const writes = input.writes.length === 0 ? 'it declares no writes' : `its writes: ${input.writes.join(', ')}`;
    return `${input.kind} node ${input.nodeId} ended without changing any file (${writes})`;
  }
  return undefined;
}
