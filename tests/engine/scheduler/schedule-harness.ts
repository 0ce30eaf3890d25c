import type { NodeOutcome, NodeTransition, SchedulableNode, ScheduleOptions } from '../../../engine/index.js';
import { VirtualClock } from './virtual-clock.js';

export interface ExecutionRecord {
  readonly nodeId: string;
  readonly attempt: number;
  readonly start: number;
  readonly end: number;
  readonly aborted: boolean;
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
  const executions: ExecutionRecord[] = [];
  const batches: NodeTransition<string>[][] = [];
  const running = new Set<string>();
  let maxRunning = 0;
  const execute: ScheduleOptions<string>['execute'] = async (nodeId, { signal, attempt }) => {
    const start = clock.now;
    order.push(`start ${nodeId}`);
    running.add(nodeId);
    maxRunning = Math.max(maxRunning, running.size);
    let aborted = false;
    try {
      await clock.sleep(script.latency?.(nodeId, attempt) ?? 10, signal);
    } catch {
      aborted = true;
    }
    running.delete(nodeId);
    order.push(`finish ${nodeId}`);
    executions.push({ nodeId, attempt, start, end: clock.now, aborted });
    if (aborted) return { status: 'failed', error: 'aborted' };
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
