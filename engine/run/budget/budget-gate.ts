import type { GateVerdict, ModelCallEstimate, ModelCallGate } from '../../agent/model-call-gate.js';
import type { EventLog } from '../../session/event-log.js';
import { SPEND_EVENT_TYPES, spendOf, type SpendEvent } from './spend-events.js';
import { NO_SPEND, budgetBreach, budgetPause, budgetPauseReason, hasCaps, type BudgetBreach, type RunBudget, type Spend } from './run-budget.js';

export interface BudgetGateOptions {
  /** The run's log: the spend is summed from it (every process's calls), the refusal appended to it. */
  readonly log: EventLog;
  /** The run's budget; undefined or empty: no run cap. */
  readonly budget: RunBudget | undefined;
  /** A node's own budget (its plan node's `budget`), read when the node calls. */
  readonly nodeBudget: (nodeId: string) => RunBudget | undefined;
  /**
   * A call was refused (once per gate): the run pauses. The `budget/reached` event is already in the
   * log. `nodeId`: the node whose own plan budget was reached (undefined: the run's).
   */
  readonly onReached?: (reason: string, nodeId?: string) => void;
}

/**
 * A run's budget, asked before every model call of its nodes, its planner and its compaction
 * summaries. The spend is the sum of the run's `assistant/message` and `compaction/summary` usage
 * and cost in the log, read again before each call (so calls of
 * other processes, workers, count), plus the estimates of this process's calls still in flight;
 * a call that would take it past a cap is refused and recorded as `budget/reached`, with the
 * log's spend and the calls in flight apart.
 * Checks run one at a time, so two nodes of this process cannot both take the last of a budget.
 */
export class BudgetGate implements ModelCallGate {
  readonly #options: BudgetGateOptions;
  #readUpTo = 0;
  #run: Spend = NO_SPEND;
  readonly #nodes = new Map<string, Spend>();
  /** Estimates of admitted calls whose answers are not in the log yet, by ticket. */
  readonly #inFlight = new Map<number, { readonly nodeId: string | null; readonly spend: Spend }>();
  #tickets = 0;
  #turn: Promise<unknown> = Promise.resolve();
  #reached: string | undefined;

  constructor(options: BudgetGateOptions) {
    this.#options = options;
  }

  admit(call: ModelCallEstimate): Promise<GateVerdict> {
    const next = this.#turn.then(() => this.#admit(call));
    this.#turn = next.catch(() => undefined);
    return next;
  }

  async #admit(call: ModelCallEstimate): Promise<GateVerdict> {
    const nodeBudget = call.nodeId === null ? undefined : this.#options.nodeBudget(call.nodeId);
    if (!hasCaps(this.#options.budget) && !hasCaps(nodeBudget)) return { admitted: true, settle: () => undefined };
    if (this.#reached !== undefined) return { admitted: false, reason: this.#reached };
    await this.#catchUp();
    const estimate = { costUsd: call.costUsd, tokens: call.inputTokens + call.outputTokens };
    const runBreach = hasCaps(this.#options.budget) ? this.#breach(null, estimate, this.#options.budget) : undefined;
    if (runBreach !== undefined) return this.#refuse(runBreach, 'run', call);
    const nodeBreach = call.nodeId !== null && hasCaps(nodeBudget) ? this.#breach(call.nodeId, estimate, nodeBudget) : undefined;
    if (nodeBreach !== undefined) return this.#refuse(nodeBreach, 'node', call);
    const ticket = (this.#tickets += 1);
    this.#inFlight.set(ticket, { nodeId: call.nodeId, spend: estimate });
    return { admitted: true, settle: () => void this.#inFlight.delete(ticket) };
  }

  /**
   * The pause line of the run's first refusal after `afterSeq` (this process's or a worker's), once
   * the run's calls have settled: with what the log holds as spent now. The calls in flight at the
   * refusal were answered (and are in the sum) or stopped (and are not), so the line gives the
   * figure `status` and the dashboard give for the same log. Undefined when the log has no refusal.
   */
  settledPause(afterSeq: number): Promise<ReturnType<typeof budgetPause> | undefined> {
    // In turn with the checks: both add the log's new answers to the sums.
    const next = this.#turn.then(() => this.#settledPause(afterSeq));
    this.#turn = next.catch(() => undefined);
    return next;
  }

  async #settledPause(afterSeq: number): Promise<ReturnType<typeof budgetPause> | undefined> {
    const [reached] = await this.#options.log.read({ types: ['budget/reached'], fromSeq: afterSeq + 1, limit: 1 });
    if (reached?.type !== 'budget/reached') return undefined;
    await this.#catchUp();
    const { inFlight, ...payload } = reached.payload;
    const whose = payload.scope === 'node' && reached.nodeId !== null ? (this.#nodes.get(reached.nodeId) ?? NO_SPEND) : this.#run;
    const spent = Math.max(payload.spent, payload.measure === 'cost' ? whose.costUsd : whose.tokens);
    // Calls in flight that were stopped unanswered were what crossed the cap: the line still says so.
    const crossedWithout = spent + payload.estimate > payload.cap;
    return budgetPause({ nodeId: reached.nodeId, payload: { ...payload, spent, ...(crossedWithout || inFlight === undefined ? {} : { inFlight }) } });
  }

  /** Records the refusal (on the node whose call it was; `scope` says whose budget) and tells the run. */
  async #refuse(breach: BudgetBreach, scope: 'run' | 'node', call: ModelCallEstimate): Promise<GateVerdict> {
    const { nodeId } = call;
    const reason = budgetPauseReason(breach, scope === 'node' ? (nodeId ?? undefined) : undefined, call.call === undefined ? undefined : { kind: call.call, summaryOf: nodeId });
    this.#reached = reason;
    await this.#options.log.append({
      type: 'budget/reached',
      ...(nodeId === null ? {} : { nodeId }),
      payload: { scope, measure: breach.measure, spent: breach.spent, estimate: breach.estimate, cap: breach.cap, ...(breach.inFlight === undefined ? {} : { inFlight: breach.inFlight }), ...(call.call === undefined ? {} : { call: call.call }) },
    });
    this.#options.onReached?.(reason, scope === 'node' ? (nodeId ?? undefined) : undefined);
    return { admitted: false, reason };
  }

  /**
   * Whether the call would cross `budget` (the run's, `nodeId` null, or a node's): what the log says
   * was spent, plus this process's calls in flight, plus the estimate. The breach gives the two
   * apart: `spent` is the log's sum, the figure `status` and the dashboard show for the same log,
   * and `inFlight` the estimates of the calls not answered yet (absent when there are none).
   */
  #breach(nodeId: string | null, estimate: Spend, budget: RunBudget): BudgetBreach | undefined {
    const logged = nodeId === null ? this.#run : (this.#nodes.get(nodeId) ?? NO_SPEND);
    let inFlight = NO_SPEND;
    for (const flight of this.#inFlight.values()) if (nodeId === null || flight.nodeId === nodeId) inFlight = plus(inFlight, flight.spend);
    const breach = budgetBreach(plus(logged, inFlight), estimate, budget);
    if (breach === undefined) return undefined;
    const measure = (spend: Spend): number => (breach.measure === 'cost' ? spend.costUsd : spend.tokens);
    return { ...breach, spent: measure(logged), ...(measure(inFlight) > 0 ? { inFlight: measure(inFlight) } : {}) };
  }

  /** Adds the answers appended since the last look, by any process. */
  async #catchUp(): Promise<void> {
    const events = await this.#options.log.read({ types: [...SPEND_EVENT_TYPES], fromSeq: this.#readUpTo + 1 });
    for (const event of events as SpendEvent[]) {
      this.#readUpTo = Math.max(this.#readUpTo, event.seq);
      const spend = spendOf(event);
      this.#run = plus(this.#run, spend);
      if (event.nodeId !== null) this.#nodes.set(event.nodeId, plus(this.#nodes.get(event.nodeId) ?? NO_SPEND, spend));
    }
  }
}

function plus(a: Spend, b: Spend): Spend {
  return { costUsd: a.costUsd + b.costUsd, tokens: a.tokens + b.tokens };
}
