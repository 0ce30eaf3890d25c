import type { NodeTransition, SchedulableNode } from '../../../engine/index.js';
import type { NodeOutcome } from '../../../engine/scheduler/schedulable-node.js';
import type { ScheduleOptions } from '../../../engine/scheduler/schedule-options.js';
import { VirtualClock } from './virtual-clock.js';

export interface ExecutionRecord {
  readonly nodeId: string;
  readonly attempt: number;
  readonly start: number;
  readonly end: number;
  readonly aborted: boolean;
  /** Whether the attempt's start was stored (`NodeExecution.durable` resolved). */
  readonly stored: boolean;
}

/** A node list from a compact form: `node('b', ['a'], ['src/b.ts'])`. */
export function node(id: string, dependsOn: readonly string[] = [], writes: readonly string[] = []): SchedulableNode {
  return { id, dependsOn, writes };
}

/**
 * A recording environment for `runSchedule`: scripted latencies and outcomes on a virtual clock,
 * a log of every start and finish (`order`), each attempt's times, the concurrency high-water
 * mark, and every persisted transition batch.
 */
export function createHarness(script: {
  readonly latency?: (nodeId: string, attempt: number) => number;
  readonly outcome?: (nodeId: string, attempt: number) => NodeOutcome<string> | Error;
}) {
  const clock = new VirtualClock();
  const order: string[] = [];
  /** `order` with, in between, when each attempt's start was stored and anything a test adds. */
  const timeline: string[] = [];
  const executions: ExecutionRecord[] = [];
  const batches: NodeTransition<string>[][] = [];
  const running = new Set<string>();
  let maxRunning = 0;
  // Like a real node: the work begins at once, and the attempt ends only after its start is stored.
  const execute: ScheduleOptions<string>['execute'] = async (nodeId, { signal, attempt, durable }) => {
    const start = clock.now;
    order.push(`start ${nodeId}`);
    timeline.push(`start ${nodeId}`);
    running.add(nodeId);
    maxRunning = Math.max(maxRunning, running.size);
    let aborted = false;
    const stored = durable.then(
      () => {
        timeline.push(`stored ${nodeId}`);
        return true;
      },
      () => false,
    );
    try {
      await clock.sleep(script.latency?.(nodeId, attempt) ?? 10, signal);
    } catch {
      aborted = true;
    }
    const wasStored = await stored;
    running.delete(nodeId);
    order.push(`finish ${nodeId}`);
    timeline.push(`finish ${nodeId}`);
    executions.push({ nodeId, attempt, start, end: clock.now, aborted, stored: wasStored });
    if (aborted || !wasStored) return { status: 'failed', error: 'aborted' };
    const outcome = script.outcome?.(nodeId, attempt) ?? { status: 'succeeded', result: `${nodeId} done` };
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const onTransitions = async (changes: readonly NodeTransition<string>[]): Promise<void> => {
    batches.push([...changes]);
  };
  return {
    clock,
    order,
    timeline,
    executions,
    batches,
    execute,
    onTransitions,
    get maxRunning() {
      return maxRunning;
    },
    transitions: () => batches.flat(),
    /** `id:kind` for every transition, in persisted order. */
    kinds: () => batches.flat().map((change) => `${change.nodeId}:${change.kind}`),
  };
}
