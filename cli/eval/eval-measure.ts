import type { Kysely } from 'kysely';
import { NothingToDiffError, currentPlan, diffRun, getRun, planSchema, readEvents, type Database, type SessionEvent } from '../../engine/index.js';
import { buildRunReport } from '../report/index.js';
import type { EvalResult } from './eval-store.js';
import { planDrift } from './plan-drift.js';

/** What an attempt's run did, read from its log (and, for the changed files, its snapshots). */
export type RunMeasures = Pick<EvalResult, 'runStatus' | 'tokens' | 'costUsd' | 'wallMs' | 'criticalPath' | 'criticalPathMs' | 'plannedFiles' | 'changedFiles' | 'drift'>;

const RUN_ENDS = new Set(['run/succeeded', 'run/failed', 'run/cancelled', 'plan/rejected']);

/**
 * The figures of one run, from the same fold `dagent report` and `status` read: tokens and cost
 * summed over the log's model calls, wall time from `run/created` to the run's end, the critical
 * path weighed by measured node times, and the plan drift of a planned run. `changed`: the files
 * that differ from the fixture (git's view); without it, the run's own snapshots say.
 */
export async function measureRun(db: Kysely<Database>, runId: string, workspace: string, changed: readonly string[] | null): Promise<RunMeasures> {
  const run = await getRun(db, runId);
  const events = await readEvents(db, runId);
  const stored = run.planVersion === null ? null : await currentPlan(db, run.id);
  const report = buildRunReport({ run, events, plan: stored === null ? null : { version: stored.version, plan: stored.plan }, diff: { available: false, reason: 'not needed' }, reproduce: [] });
  const changedFiles = changed === null ? await changedFilesOf(db, runId, workspace) : [...changed];
  const plannedFiles = firstPlanWrites(events);
  const durations = new Map(report.nodes.map((node) => [node.id, node.durationMs ?? 0]));
  const criticalPath = report.plan?.criticalPath ?? [];
  return {
    runStatus: report.run.status,
    tokens: { input: report.totals.tokens.input, output: report.totals.tokens.output, cacheHit: report.totals.tokens.cacheHit },
    costUsd: report.totals.costUsd,
    wallMs: wallTime(events),
    criticalPath,
    criticalPathMs: report.plan === null ? null : criticalPath.reduce((sum, id) => sum + (durations.get(id) ?? 0), 0),
    plannedFiles,
    changedFiles,
    drift: run.mode === 'react' || report.plan === null ? null : planDrift(plannedFiles, changedFiles),
  };
}

/** From the first event to the run's end (planning included); null when the run never ended. */
export function wallTime(events: readonly SessionEvent[]): number | null {
  const end = events.findLast((event) => RUN_ENDS.has(event.type));
  const first = events[0];
  if (end === undefined || first === undefined) return null;
  return Math.max(0, Date.parse(end.createdAt) - Date.parse(first.createdAt));
}

/** The `writes` of the plan's first version: what the reviewed plan said it would write. */
function firstPlanWrites(events: readonly SessionEvent[]): string[] {
  const created = events.find((event) => event.type === 'plan/created');
  if (created?.type !== 'plan/created') return [];
  const plan = planSchema.safeParse(created.payload.plan);
  return plan.success ? [...new Set(plan.data.nodes.flatMap((node) => node.writes))].sort() : [];
}

async function changedFilesOf(db: Kysely<Database>, runId: string, workspace: string): Promise<string[]> {
  try {
    return (await diffRun(db, runId, workspace)).files.map((file) => file.path).sort();
  } catch (error) {
    if (error instanceof NothingToDiffError) return [];
    throw error;
  }
}
