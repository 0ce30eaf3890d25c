import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { DagentError, errorMessage } from '../../errors.js';
import { BudgetGate } from '../budget/budget-gate.js';
import { hasCaps, type RunBudget } from '../budget/run-budget.js';
import { runLog } from '../../session/run-log.js';
import { claimRun } from '../ownership/run-lease.js';
import { endRun } from '../storage/end-run.js';
import { savePlan } from '../storage/plan-store.js';
import type { PlanLinter } from '../../plan/plan-linter.js';
import type { Planner } from '../../plan/planner.js';
import type { PlanRules } from '../../plan/plan-rules.js';
import { createRun } from '../storage/run-store.js';

export interface PlanTaskOptions {
  readonly db: Kysely<Database>;
  readonly planner: Planner;
  readonly task: string;
  readonly workspace: string;
  /** Workspace-relative paths the task named, already checked inside the workspace. */
  readonly paths: readonly string[];
  readonly signal: AbortSignal;
  /** The rules the plan is checked by, as the run's isolation allows. */
  readonly rules?: PlanRules | undefined;
  /** Recorded with the run (`RunRecord.config`): the settings it was planned with, e.g. its models. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Told the run id as soon as the run exists, before the planner runs. */
  readonly onStart?: (runId: string) => void;
  /** Lints the plan; the findings are recorded with `plan/created`. */
  readonly linter?: PlanLinter;
  /**
   * The run's budget while it is planned (`plan --max-cost`/`--max-tokens`, config `budget`):
   * recorded as `budget/set`, and the planner's calls are weighed against it before they are sent.
   */
  readonly budget?: { readonly caps: RunBudget; readonly source: 'flags' | 'config' };
}

/**
 * A new plan-mode run for a task: the planner's plan is stored as v1, awaiting approval. While it
 * plans, this process holds the run's lease, so `status`, `cancel` and `resume` can tell a run
 * still being planned from one whose process died (kill -9, a crash, a closed terminal). A
 * planning failure ends the run failed (every attempt stays in its log) and is thrown; planning
 * stopped by `signal` (Ctrl-C, SIGTERM) ends it cancelled.
 */
export async function planTask(options: PlanTaskOptions): Promise<string> {
  const run = await createRun(options.db, { task: options.task, workspace: options.workspace, mode: 'plan', ...(options.config === undefined ? {} : { config: options.config }) });
  const lease = (await claimRun(options.db, run.id)).keepAlive();
  options.onStart?.(run.id);
  let reached: string | undefined;
  try {
    const gate = await planningGate(options, run.id, (reason) => (reached = reason));
    const plan = await options.planner.plan({ runId: run.id, task: options.task, workspace: options.workspace, paths: options.paths, signal: options.signal, rules: options.rules, ...(gate === undefined ? {} : { gate }) });
    const lint = options.linter === undefined ? undefined : await options.linter(plan, options.signal);
    await savePlan(options.db, run.id, { plan, reason: 'planned', ...(lint === undefined ? {} : { lint }) });
    return run.id;
  } catch (error) {
    if (reached !== undefined) {
      // The planner's call was never sent: the run keeps its task, its log and its budget.
      const line = `planning stopped: ${reached}; nothing more was sent. Plan again under a higher cap (--max-cost USD or --max-tokens N)`;
      await endRun(options.db, run.id, { status: 'failed', error: line });
      throw new DagentError(`run ${run.id} ${line}`, { exitCode: 1 });
    }
    const message = errorMessage(error);
    if (options.signal.aborted) {
      await endRun(options.db, run.id, { status: 'cancelled', reason: `planning stopped: ${errorMessage(options.signal.reason)}` });
    } else {
      await endRun(options.db, run.id, { status: 'failed', error: message.startsWith('planning failed') ? message : `planning failed: ${message}` });
    }
    throw error;
  } finally {
    await lease.release();
  }
}

/** The budget's gate for the planner's first calls, with the budget recorded in the run's log; none without caps. */
async function planningGate(options: PlanTaskOptions, runId: string, onReached: (reason: string) => void): Promise<BudgetGate | undefined> {
  const budget = options.budget;
  if (budget === undefined || !hasCaps(budget.caps)) return undefined;
  const log = runLog(options.db, runId);
  await log.append({ type: 'budget/set', payload: { ...budget.caps, source: budget.source } });
  return new BudgetGate({ log, budget: budget.caps, nodeBudget: () => undefined, onReached });
}
