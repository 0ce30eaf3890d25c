import { DagentError, FileSnapshots, approvePlan, claimRun, executeRun, getRun, waitForRun, type RunLease, type RunResult, type RunSettings } from '../engine/index.js';
import type { CliContext } from './cli-context.js';
import { writeLine } from './cli-io.js';
import { createApprover, createNodeRuntime, createTools } from './compose-runtime.js';
import { dispatchToWorkers, type WorkspaceMode } from './dispatch-run.js';
import { createPlanner } from './planning.js';
import { createProgressPrinter } from './progress.js';

export interface RunFlags {
  readonly approvedHash?: string;
  readonly schedule?: 'eager' | 'batch';
  readonly concurrency?: number;
  readonly reviewReplans?: boolean;
  /** `--wait`: when another process holds the run, wait for it to let go instead of refusing. */
  readonly wait?: boolean;
  /** `--workers`: schedule here, run the nodes on worker processes (`dagent worker`), in this workspace mode. */
  readonly workers?: WorkspaceMode;
}

/** With `--workers` the workers' own `--concurrency` bounds the work: the scheduler dispatches every ready node. */
const WORKERS_DEFAULT_CONCURRENCY = 1_000;

/** `plan --yes`: approve the plan, then run it. */
export async function approveAndRun(context: CliContext, runId: string, flags: RunFlags): Promise<number> {
  const { db } = await context.store();
  const stored = await approvePlan(db, runId);
  if (!context.json) writeLine(context.io.stdout, `approved plan v${stored.version} of run ${runId} · hash ${stored.hash}`);
  return runApprovedPlan(context, runId, flags);
}

/**
 * Runs (or resumes) a run's approved plan with plain progress lines, and maps the outcome to the
 * exit code: 0 succeeded (or paused for review), 1 failed or cancelled.
 */
export async function runApprovedPlan(context: CliContext, runId: string, flags: RunFlags): Promise<number> {
  const { db } = await context.store();
  const lease = await claimForThisProcess(context, runId, flags);
  try {
    const run = await getRun(db, runId);
    if (run.status === 'succeeded') {
      // The holder we waited for (or one that ended just before our claim) finished it.
      if (flags.wait !== true) throw new DagentError(`run ${run.id} already succeeded; \`dagent diff ${run.id}\` shows its change`);
      writeLine(context.io.stdout, `run ${run.id} succeeded (in the process this one waited for); see the change: dagent diff ${run.id}`);
      return 0;
    }
    return await executeClaimedRun(context, run.id, flags, lease.keepAlive());
  } finally {
    await lease.release();
  }
}

/** One runner per run: a live holder refuses us (exit 2, its pid), or with `--wait` is waited for. */
async function claimForThisProcess(context: CliContext, runId: string, flags: RunFlags): Promise<RunLease> {
  const { db } = await context.store();
  if (flags.wait !== true) return claimRun(db, runId);
  return waitForRun(db, runId, {
    signal: context.io.interrupt,
    onWaiting: (holder) => writeLine(context.io.stderr, `run ${runId} is running in pid ${holder.pid}${holder.host === '' ? '' : ` on ${holder.host}`}: waiting for it to end`),
  });
}

async function executeClaimedRun(context: CliContext, runId: string, flags: RunFlags, lease: RunLease): Promise<number> {
  const { db } = await context.store();
  const run = await getRun(db, runId);
  const tools = await createTools(context);
  const runtime = await createNodeRuntime(context, { tools, approver: createApprover(context) });
  const settings: Partial<RunSettings> = {
    ...(flags.schedule ?? context.config.schedule ? { mode: flags.schedule ?? context.config.schedule } : {}),
    ...(flags.concurrency ?? context.config.concurrency ? { concurrency: flags.concurrency ?? context.config.concurrency } : flags.workers === undefined ? {} : { concurrency: WORKERS_DEFAULT_CONCURRENCY }),
    ...(context.config.nodeRetries === undefined ? {} : { maxAttempts: context.config.nodeRetries + 1 }),
    ...(context.config.replan?.threshold === undefined ? {} : { replanThreshold: context.config.replan.threshold }),
    ...(context.config.replan?.maxReplans === undefined ? {} : { maxReplans: context.config.replan.maxReplans }),
    ...((flags.reviewReplans ?? context.config.replan?.review) === undefined ? {} : { reviewReplans: flags.reviewReplans ?? context.config.replan?.review ?? false }),
  };
  const planner = await createPlanner(context);
  const dispatch = flags.workers === undefined ? undefined : await dispatchToWorkers(context, run, flags.workers);
  const result = await executeRun({
    db,
    runId: run.id,
    runtime,
    files: new FileSnapshots({ db, runId: run.id, workspace: run.workspace }),
    settings,
    signal: AbortSignal.any([context.io.interrupt, lease.lost]),
    onEvents: createProgressPrinter(context.io, { json: context.json }),
    ...(planner === undefined ? {} : { planner }),
    ...(flags.approvedHash === undefined ? {} : { approvedHash: flags.approvedHash }),
    ...(dispatch === undefined ? {} : { remote: dispatch.remote }),
  }).finally(() => dispatch?.close());
  if (!context.json) writeLine(context.io.stdout, summaryLine(result));
  return result.status === 'succeeded' || result.status === 'paused' ? 0 : 1;
}

function summaryLine(result: RunResult): string {
  const done = result.nodes.filter((node) => node.status === 'succeeded').length;
  const base = `run ${result.runId} ${result.status} · plan v${result.planVersion} · ${done}/${result.nodes.length} nodes succeeded${result.replans > 0 ? ` · ${result.replans} replans` : ''}`;
  switch (result.status) {
    case 'succeeded':
      return `${base}\nsee the change: dagent diff ${result.runId}`;
    case 'failed':
      return `${base}\n${result.error ?? ''}\nsee why: dagent status ${result.runId} · dagent log ${result.runId} --type node/`;
    case 'cancelled':
      return `${base}\nresume with: dagent resume ${result.runId}`;
    case 'paused':
      return `${base}\nreview the replanned plan: dagent show ${result.runId}, then dagent approve ${result.runId} && dagent resume ${result.runId}`;
  }
}
