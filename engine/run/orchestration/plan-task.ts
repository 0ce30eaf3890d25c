import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { errorMessage } from '../../errors.js';
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
  try {
    const plan = await options.planner.plan({ runId: run.id, task: options.task, workspace: options.workspace, paths: options.paths, signal: options.signal, rules: options.rules });
    const lint = options.linter === undefined ? undefined : await options.linter(plan, options.signal);
    await savePlan(options.db, run.id, { plan, reason: 'planned', ...(lint === undefined ? {} : { lint }) });
    return run.id;
  } catch (error) {
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
