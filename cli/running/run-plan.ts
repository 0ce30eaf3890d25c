import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  ConfigError,
  DagentError,
  RUN_VIEW_EVENT_TYPES,
  budgetOutlook,
  capBelowSpend,
  hasCaps,
  DEFAULT_RUN_SETTINGS,
  DEFAULT_TEAM_LIMITS,
  approvePlan,
  claimRun,
  effectiveBudget,
  recordedBudget,
  runLog,
  currentPlan,
  emptyRunView,
  errorMessage,
  executeRun,
  foldRunView,
  followRun,
  getRun,
  isTerminalRunStatus,
  nodeKind,
  nodeModels,
  pausedBudgetWayOn,
  readEvents,
  startGitSpawner,
  suggestedCaps,
  visibleText,
  waitForRun,
  type Approver,
  type RunLease,
  type RunRecord,
  type RunResult,
  type RunSettings,
  type RunBudget,
  type SessionEvent,
  type Store,
} from '../../engine/index.js';
import { createLogApprover } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { createApprover, createNodeRuntime, createTools } from '../runtime/compose-runtime.js';
import { settleRunRouting } from '../runtime/model-routing.js';
import { dispatchToWorkers, type WorkspaceMode } from './dispatch-run.js';
import { checkLintGate, planLinter } from '../plans/plan-lint.js';
import { createPlanner } from '../plans/planning.js';
import { reviewedNodeCosts } from '../plans/plan-review.js';
import { startRunTracing } from '../telemetry/run-tracing.js';
import type { LiveDashboard } from './live-dashboard.js';
import { runNodeFiles } from './node-files.js';
import { createProgressPrinter, type ProgressPrinter } from './progress.js';

export interface RunFlags {
  readonly approvedHash?: string;
  readonly schedule?: 'eager' | 'batch';
  readonly concurrency?: number;
  readonly reviewReplans?: boolean;
  /** `--wait`: when another process holds the run, wait for it to let go instead of refusing. */
  readonly wait?: boolean;
  /** `--workers`: schedule here, run the nodes on worker processes (`dagent worker`), in this workspace mode. */
  readonly workers?: WorkspaceMode;
  /** `--dashboard` / `--no-dashboard`; by default the dashboard shows on a terminal (and not with `--json`). */
  readonly dashboard?: boolean;
  /** Approvals wait for an answer in the log (from `dagent dashboard`) instead of being denied without a terminal. */
  readonly approveFromDashboard?: boolean;
  /** `--allow-lint CODE`: lint errors of these codes do not stop `plan --yes`. */
  readonly allowLint?: readonly string[];
  /** The lint error codes `run --allow-lint` let through beyond the approval's: recorded in `run/started`. */
  readonly allowedLint?: readonly string[];
  /** `--no-reuse`: after a plan edit, run the changed nodes and every node after them again without checking their keys. */
  readonly reuse?: boolean;
  /**
   * `--no-routing`: no node runs on config `smallModel` (nodes marked simple take the run's model),
   * nor do compaction summaries; `--routing` turns it back on; unset, the run keeps what it recorded.
   */
  readonly routing?: boolean;
  /** `--max-cost` / `--max-tokens`: the run's budget from now on, over the one it recorded and the config's. */
  readonly budget?: RunBudget;
  /** Changes the run once this process holds it, before it starts (`rerun`: a new plan version, nodes reset). */
  readonly prepare?: (run: RunRecord) => Promise<void>;
}

/** With `--workers` the workers' own `--concurrency` bounds the work: the scheduler dispatches every ready node. */
const WORKERS_DEFAULT_CONCURRENCY = 1_000;

/** `plan --yes`: approve the plan, then run it. */
export async function approveAndRun(context: CliContext, runId: string, flags: RunFlags): Promise<number> {
  const { db } = await context.store();
  const allowedLint = await checkLintGate(context, runId, flags.allowLint);
  const stored = await approvePlan(db, runId, { allowedLint });
  if (!context.json) writeLine(context.io.stdout, `approved plan v${stored.version} of run ${runId} · hash ${stored.hash}${allowedLint.length === 0 ? '' : ` · lint errors allowed: ${allowedLint.join(', ')}`}`);
  return runApprovedPlan(context, runId, flags);
}

/** Whether `run`, `resume` and the demo show the dashboard: asked for, or a terminal on both ends and no `--json`. */
export function wantsDashboard(context: CliContext, flags: RunFlags): boolean {
  const terminal = context.io.stdout.isTTY === true && context.io.stdin.isTTY === true;
  if (flags.dashboard === false || context.json || !terminal) return false;
  return true;
}

/**
 * Runs (or resumes) a run's approved plan, shown on the dashboard (a terminal) or as progress
 * lines (`--no-dashboard`, no terminal; JSONL with `--json`), and maps the outcome to the exit
 * code: 0 succeeded (or paused for review), 1 failed or cancelled. Both follow the run's one live
 * log, so the planner's appends during a replan show up like every other event. `known`: the run's
 * row as the command read it, passed down to the run instead of read again (read here after the
 * lease only when there is none, or when this process waited for another one to let go).
 */
export async function runApprovedPlan(context: CliContext, runId: string, flags: RunFlags, known?: RunRecord): Promise<number> {
  const { db } = await context.store();
  const lease = await claimForThisProcess(context, runId, flags);
  try {
    let run = known !== undefined && flags.wait !== true ? known : await getRun(db, runId);
    if (flags.prepare !== undefined) {
      await flags.prepare(run);
      run = await getRun(db, runId);
    }
    if (run.status === 'succeeded') {
      // The holder we waited for (or one that ended just before our claim) finished it.
      if (flags.wait !== true) throw new DagentError(`run ${run.id} already succeeded; \`dagent diff ${run.id}\` shows its change`);
      if (context.json) writeLine(context.io.stdout, JSON.stringify({ runId: run.id, status: run.status, resumed: false }));
      else writeLine(context.io.stdout, `run ${run.id} succeeded (in the process this one waited for); see the change: dagent diff ${run.id}`);
      return 0;
    }
    return await executeClaimedRun(context, run, flags, lease.keepAlive());
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

/**
 * PostgreSQL: the first stage's nodes each need a store connection, a server process to start and
 * warm; they open beside the rest of the run's set-up instead of inside the first stage (some
 * 150 ms of a ten-node stage here). A run on workers keeps the few its scheduler's own statements
 * use at once (a W3 run opened three of them in the middle of its stages). Nothing on SQLite. Never
 * rejects: a connection that failed to open is the first statement's to meet again, with its own error.
 */
function openStageConnections(store: Store, context: CliContext, flags: RunFlags): Promise<void> {
  const count = flags.workers !== undefined ? DISPATCHING_CONNECTIONS : (flags.concurrency ?? context.config.concurrency ?? DEFAULT_RUN_SETTINGS.concurrency);
  return store.keepConnections(count).catch(() => undefined);
}

/**
 * The store connections a run dispatched to workers uses at once: the read of new outcomes, the
 * write of a stage, the queue's and the claims' look-ups.
 */
const DISPATCHING_CONNECTIONS = 4;

/**
 * The run's node files (in a git repository: its branch, its worktrees, the view the first readers
 * share) open beside the rest of the set-up, not after it: their git commands then come before the
 * run starts instead of on its first nodes' way. Closed here when the set-up fails before the run
 * takes them.
 */
async function executeClaimedRun(context: CliContext, run: RunRecord, flags: RunFlags, lease: RunLease): Promise<number> {
  // A run in a git repository starts many git commands (snapshots, worktrees, merges): from a small helper process, not from this one.
  if (existsSync(join(run.workspace, '.git'))) startGitSpawner();
  const opening = runNodeFiles(context, run, { workers: flags.workers !== undefined });
  opening.catch(() => undefined);
  let taken = false;
  const take = (): Promise<Awaited<typeof opening>> => {
    taken = true;
    return opening;
  };
  try {
    return await setUpAndRun(context, run, flags, lease, take);
  } finally {
    if (!taken) await opening.then((opened) => opened.files.close?.(), () => undefined);
  }
}

async function setUpAndRun(context: CliContext, run: RunRecord, flags: RunFlags, lease: RunLease, nodeFilesOf: () => ReturnType<typeof runNodeFiles>): Promise<number> {
  const store = await context.store();
  const { db } = store;
  const connections = openStageConnections(store, context, flags);
  context.adoptRunModels(run.config);
  const tools = await createTools(context);
  const dashboardOn = wantsDashboard(context, flags);
  const approver: Approver = dashboardOn || flags.approveFromDashboard === true ? createLogApprover(store) : createApprover(context);
  // The run's routing is in its log: its workers route as it does.
  const routing = await settleRunRouting(runLog(db, run.id), flags.routing, context.config);
  const runtime = await createNodeRuntime(context, { tools, approver, routing: routing.enabled });
  // Every model the plan needs is built now: a missing key or provider is refused before a node starts.
  const { plan, status } = await currentPlan(db, run);
  // When slots are short, nodes are weighed as the review estimated them (the files they cover): found beside the rest of the set-up, never failing the run.
  const nodeCosts = reviewedNodeCosts(context.workspace, plan).catch(() => undefined);
  // Fallback models are built when a node needs one: a fallback without a key only fails then.
  if (status === 'approved') {
    for (const node of plan.nodes) {
      if (!nodeKind(node.kind).runsModel) continue;
      const models = nodeModels(node, node.role === undefined ? undefined : context.config.roles?.[node.role], [], runtime.routing);
      runtime.resolveModel(models.primary, { fromPlan: models.primary !== undefined && models.fromPlan.has(models.primary) });
    }
  }
  const settings: Partial<RunSettings> = {
    ...(flags.schedule ?? context.config.schedule ? { mode: flags.schedule ?? context.config.schedule } : {}),
    ...(flags.concurrency ?? context.config.concurrency ? { concurrency: flags.concurrency ?? context.config.concurrency } : flags.workers === undefined ? {} : { concurrency: WORKERS_DEFAULT_CONCURRENCY }),
    ...(context.config.nodeRetries === undefined ? {} : { maxAttempts: context.config.nodeRetries + 1 }),
    ...(context.config.replan?.threshold === undefined ? {} : { replanThreshold: context.config.replan.threshold }),
    ...(context.config.replan?.maxReplans === undefined ? {} : { maxReplans: context.config.replan.maxReplans }),
    ...(context.config.onConflict === undefined ? {} : { onConflict: context.config.onConflict }),
    ...(context.config.team === undefined ? {} : { team: { ...DEFAULT_TEAM_LIMITS, ...context.config.team } }),
    ...((flags.reviewReplans ?? context.config.replan?.review) === undefined ? {} : { reviewReplans: flags.reviewReplans ?? context.config.replan?.review ?? false }),
    // Commands a replan adds were not approved: they wait for approval unless commands run under auto.
    reviewCommandChanges: tools.policyFor('run_command') !== 'auto',
  };
  const budget = await budgetGoingOn(db, run.id, flags.budget, context.config.budget);
  const planner = await createPlanner(context);
  const dispatch = flags.workers === undefined ? undefined : await dispatchToWorkers(context, run, flags.workers);
  const cancelled = new AbortController();
  const feed = await openFeed(context, run.id, dashboardOn, flags.approveFromDashboard !== true, async () => {
    cancelled.abort(new Error('cancelled from the dashboard'));
    return 'cancelling: running nodes are stopped, the run stays resumable';
  });
  const [tracing, , nodeCost] = await Promise.all([startRunTracing(context, run.id), connections, nodeCosts]);
  let result: RunResult;
  try {
    const nodeFiles = await nodeFilesOf();
    if (nodeFiles.notice !== undefined) writeLine(context.io.stderr, nodeFiles.notice);
    result = await executeRun({
      db,
      runId: run.id,
      run,
      runtime,
      files: nodeFiles.files,
      settings,
      signal: AbortSignal.any([context.io.interrupt, lease.lost, cancelled.signal]),
      ...(planner === undefined ? {} : { planner }),
      linter: planLinter(context),
      ...(flags.allowedLint === undefined ? {} : { allowedLint: flags.allowedLint }),
      ...(flags.approvedHash === undefined ? {} : { approvedHash: flags.approvedHash }),
      ...(flags.reuse === false ? { reuse: false } : {}),
      ...(budget === undefined ? {} : { budget: { caps: budget.budget, source: budget.source } }),
      ...(nodeCost === undefined ? {} : { nodeCost }),
      fleet: {
        ...(dispatch === undefined ? {} : { remote: dispatch.remote, remoteSharesFiles: dispatch.mode === 'shared' }),
        // Workers' reports of missed work, and `dagent cancel` from a host that cannot signal this process.
        follow: store,
        // A cancel request appended after the lease was taken is for this process, even one before its `run/started`.
        leaseSeq: lease.seenSeq,
      },
    }).finally(() => dispatch?.close());
    await feed.catchUp();
    await feed.untilDetached();
  } finally {
    await feed.stop();
    await tracing?.finish();
  }
  if (!context.json) writeLine(context.io.stdout, visibleText(await summaryLine(db, result), { multiline: true }));
  return result.status === 'succeeded' || result.status === 'paused' ? 0 : 1;
}

interface RunFeed {
  catchUp(): Promise<void>;
  /** With the dashboard up, waits until the user quits it (the final state stays on screen until then). */
  untilDetached(): Promise<void>;
  stop(): Promise<void>;
}

/** The dashboard, or progress lines (JSONL with `--json`), following the run's live log. */
async function openFeed(context: CliContext, runId: string, dashboardOn: boolean, approvalsHere: boolean, cancel: () => Promise<string>): Promise<RunFeed> {
  const store = await context.store();
  if (dashboardOn) {
    // The screen's code (blessed and the dashboard's widgets) loads only for a run shown on one: a run in CI or a pipe never pays for it.
    const { showLiveDashboard } = await import('./live-dashboard.js');
    const live: LiveDashboard = await showLiveDashboard(context, runId, { attached: true, cancel });
    let detached = false;
    let lines: ProgressPrinter | undefined;
    live.dashboard.detached
      .then(() => {
        detached = true;
        // Quitting the screen only detaches: the run goes on, reported as lines.
        const view = live.dashboard.state().view;
        const printer = createProgressPrinter(context.io, { json: false, initial: view });
        if (!isTerminalRunStatus(view.status)) {
          writeLine(context.io.stdout, `dashboard detached (q or Ctrl-C); the run goes on here as progress lines: Ctrl-C now stops it, \`dagent dashboard ${runId}\` attaches again`);
        }
        live.sink = printer;
        lines = printer;
      })
      .catch((error: unknown) => {
        // The lines could not take over: the run itself is unharmed, so it goes on to its summary line
        // and exit code; the user is told once where to watch it, and nothing more goes to the closed screen.
        detached = true;
        live.sink = () => undefined;
        writeLine(context.io.stderr, `dagent: the dashboard closed, but progress lines could not take over (${visibleText(errorMessage(error))}); the run goes on: \`dagent status ${runId}\` shows it`);
      });
    return {
      catchUp: async () => {
        await live.follower.catchUp();
        lines?.flush();
      },
      untilDetached: async () => {
        if (!detached) await Promise.race([live.dashboard.detached, abortion(context.io.interrupt)]);
      },
      stop: async () => {
        await live.stop();
        lines?.flush();
      },
    };
  }
  const known = await readEvents(store.db, runId);
  const printer = createProgressPrinter(context.io, { json: context.json, initial: known.length === 0 ? emptyRunView(runId) : foldRunView(runId, known), approvalsHere });
  const stopping = new AbortController();
  const follower = await followRun(store, runId, { afterSeq: known.at(-1)?.seq ?? 0, signal: stopping.signal, onEvents: (events: readonly SessionEvent[]) => printer(events) });
  return {
    catchUp: async () => {
      await follower.catchUp();
      printer.flush();
    },
    untilDetached: async () => undefined,
    stop: async () => {
      stopping.abort();
      await follower.stop();
      printer.flush();
    },
  };
}

function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

async function summaryLine(db: Store['db'], result: RunResult): Promise<string> {
  const done = result.nodes.filter((node) => node.status === 'succeeded').length;
  const base = `run ${result.runId} ${result.status} · plan v${result.planVersion} · ${done}/${result.nodes.length} nodes succeeded${result.replans > 0 ? ` · ${result.replans} replans` : ''}`;
  switch (result.status) {
    case 'succeeded':
      return `${base}\nsee the change: dagent diff ${result.runId}`;
    case 'failed':
      if (result.unplannedWork !== undefined)
        return `${base}\n${result.error ?? ''}\nplan the reported work: dagent resume ${result.runId} · see why: dagent log ${result.runId} --type replan/`;
      return `${base}\n${result.error ?? ''}\nsee why: dagent status ${result.runId} · dagent log ${result.runId} --type node/`;
    case 'cancelled':
      return `${base}\nresume with: dagent resume ${result.runId}`;
    case 'paused':
      if (result.pausedFor !== undefined) return `${base}\n${result.pausedFor}`;
      if (result.pause?.cause === 'budget') {
        // The way on is worked out from what the log says is left.
        const view = foldRunView(result.runId, await readEvents(db, result.runId, { types: RUN_VIEW_EVENT_TYPES }));
        return `${base}\nrun ${result.runId} paused: ${result.pause.reason}; ${pausedBudgetWayOn(view)}`;
      }
      return `${base}\nreview the replanned plan: dagent show ${result.runId}, then dagent approve ${result.runId} && dagent resume ${result.runId}`;
  }
}

/**
 * The budget the run goes on with (`effectiveBudget`). A cap given to `run`/`resume` of a run that
 * spent already must be above its spend (`capBelowSpend`): one at or below it is bad input.
 */
async function budgetGoingOn(db: Store['db'], runId: string, flags: RunBudget | undefined, config: RunBudget | undefined): Promise<ReturnType<typeof effectiveBudget>> {
  if (hasCaps(flags)) {
    const view = foldRunView(runId, await readEvents(db, runId, { types: RUN_VIEW_EVENT_TYPES }));
    const outlook = budgetOutlook(view);
    const problem = capBelowSpend(flags, outlook.spent, suggestedCaps(flags, outlook));
    if (problem !== undefined) throw new ConfigError(`run ${runId}: ${problem}`);
  }
  return effectiveBudget(flags ?? {}, await recordedBudget(runLog(db, runId)), config);
}

