import { errorMessage } from '../../errors.js';
import type { Plan } from '../../plan/plan-schema.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { RunEnding } from '../storage/end-run.js';
import { unplannedWorkError, type UnplannedWork } from '../views/unplanned-work.js';
import { firstLine } from './replan-verdict.js';
import type { NodeReportLine, RunPause, RunResult } from './run-options.js';

export interface RunOutcomeInput {
  /** How the schedule ended. */
  readonly status: 'succeeded' | 'failed' | 'cancelled';
  readonly plan: Plan;
  readonly nodes: ReadonlyMap<string, { readonly status: NodeStatus; readonly attempts: number; readonly error?: string }>;
  /** Why the run stopped unfinished: a replan waits for review, or a budget is reached. */
  readonly paused: RunPause | undefined;
  readonly unplanned: readonly UnplannedWork[];
  /** Why the run was cancelled, when it was. */
  readonly cancelReason: unknown;
}

/** How a run ends, from how its schedule ended: the ending to store and the outcome's status, nodes and error. */
export function runOutcome(input: RunOutcomeInput): { readonly ending: RunEnding; readonly status: RunResult['status']; readonly nodes: NodeReportLine[]; readonly error?: string; readonly unplanned?: number } {
  const { status, paused } = input;
  const nodes = input.plan.nodes.map((node) => ({ id: node.id, ...(input.nodes.get(node.id) ?? { status: 'pending' as NodeStatus, attempts: 0 }) }));
  const failed = nodes.find((node) => node.status === 'failed');
  // Every node succeeded, but work a node reported was never planned: the run did not do what it was asked.
  const unplanned = status === 'succeeded' && paused === undefined && input.unplanned.length > 0 ? unplannedWorkError(input.unplanned) : undefined;
  const error = failed === undefined ? unplanned : `node ${failed.id} failed: ${firstLine(failed.error ?? '')}`;
  const finalStatus: RunResult['status'] = paused !== undefined ? 'paused' : unplanned !== undefined ? 'failed' : status;
  const ending: RunEnding =
    finalStatus === 'succeeded'
      ? { status: 'succeeded', result: `${nodes.length} nodes succeeded` }
      : finalStatus === 'failed'
        ? { status: 'failed', error: error ?? 'the run failed' }
        : finalStatus === 'paused'
          ? { status: 'paused', reason: paused?.reason ?? 'paused', cause: paused?.cause ?? 'review' }
          : { status: 'cancelled', reason: errorMessage(input.cancelReason ?? 'cancelled') };
  return { ending, status: finalStatus, nodes, ...(error === undefined ? {} : { error }), ...(unplanned === undefined ? {} : { unplanned: input.unplanned.length }) };
}
