import type { NodeTransition } from '../../scheduler/node-transition.js';
import type { EventLog } from '../../session/event-log.js';
import { appendNodeTransitions, type DescribedResult, type NodeTotals } from '../storage/node-projection.js';
import { isSpendEvent } from '../budget/spend-events.js';
import { reduceRunView } from '../views/run-view.js';
import type { RunView } from '../views/run-view-types.js';
import type { NodeResult } from './run-options.js';

/**
 * Where a run's schedule loop commits its node transitions: their `node/*` events and the `nodes`
 * rows, in one transaction, each settled row with the node's tokens and cost as the log has them
 * (the store follows the log's usage itself). The controller hands it to the loop and only tells
 * it the plan version after a replan: no transition passes through the controller.
 */
export class TransitionStore {
  readonly #log: EventLog;
  readonly #started = new Map<string, string>();
  readonly #unsubscribe: () => void;
  #usage: RunView;
  /** The plan version a node row gets when it did not exist yet. */
  planVersion: number;

  constructor(log: EventLog, planVersion: number, usage: RunView) {
    this.#log = log;
    this.planVersion = planVersion;
    this.#usage = usage;
    this.#unsubscribe = log.onAppend((events) => {
      for (const event of events) if (isSpendEvent(event)) this.#usage = reduceRunView(this.#usage, event);
    });
  }

  /** The loop's `onTransitions`. */
  readonly commit = (changes: readonly NodeTransition<NodeResult>[]): Promise<void> =>
    appendNodeTransitions(this.#log, changes, { planVersion: this.planVersion, describe: describeResult, totals: (nodeId) => this.#totals(nodeId), started: this.#started });

  close(): void {
    this.#unsubscribe();
  }

  #totals(nodeId: string): NodeTotals | undefined {
    const node = this.#usage.nodes.get(nodeId);
    return node === undefined ? undefined : { ...node.tokens, costUsd: node.costUsd };
  }
}

function describeResult(result: NodeResult): DescribedResult {
  return { result: result.answer, filesChanged: result.filesChanged, ...(result.keyed === undefined ? {} : { before: [result.keyed] }) };
}
