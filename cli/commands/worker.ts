import { resolve } from 'node:path';
import {
  CloneWorkspace,
  DagentError,
  FileSnapshots,
  PLAN_NODE_KINDS,
  RunClaimedError,
  createGraphileJobQueue,
  errorMessage,
  readEvents,
  runLog,
  startNodeWorker,
  visibleText,
  warmNodePrompts,
  warmWorkerFirstUses,
  type RunRecord,
  type RunWorkspace,
  type SessionEvent,
} from '../../engine/index.js';
import { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { lineBatch } from '../context/line-batch.js';
import { defineCommand } from '../context/command.js';
import { createApprover, createNodeRuntime, createTools } from '../runtime/compose-runtime.js';
import { recordedRouting } from '../runtime/model-routing.js';
import { rehearseNodePath } from '../running/rehearsal.js';
import { runApprovedPlan } from '../running/run-plan.js';

/** A worker's lines wait at most this long for the others of their burst (ms). */
const WORKER_LINES_WAIT_MS = 50;

interface WorkerArgs {
  concurrency?: number;
  clone?: string;
  'claim-ttl'?: number;
  'adopt-every'?: number;
  'warm-up'?: boolean;
}

export const workerCommand = defineCommand<WorkerArgs>({
  examples: [
    ['$0 worker --db postgres://localhost/dagent', 'run nodes of `run --workers` runs from the job queue'],
  ],
  builder: (yargs) =>
    yargs
      .option('concurrency', { alias: 'j', type: 'number', default: 2, describe: 'nodes this worker runs at once (1 in clone mode)' })
      .option('clone', { type: 'string', describe: 'clone mode: this git clone of the repository is where this worker runs nodes' })
      .option('claim-ttl', { type: 'number', describe: 'ms a node claim lasts without renewal; a dead worker\'s node goes to another after it (default 15000)' })
      .option('adopt-every', { type: 'number', describe: 'ms between looks for runs whose scheduler died, which this worker then schedules (default 5000)' })
      .option('warm-up', { type: 'boolean', default: true, describe: "before taking jobs, rehearse a node's path on a scripted three-node plan in memory (some 0.1–0.3 s), so a new fleet's first run goes as quickly as its later ones; --no-warm-up takes jobs at once" }),
  async run(context, args) {
    const store = await context.store();
    if (store.dialect !== 'postgres') throw new DagentError('a worker takes its nodes from a PostgreSQL store: --db postgres://… or DAGENT_DB, the store the runs were planned in');
    const out = context.io.stdout;
    const clone = args.clone === undefined ? undefined : resolve(context.io.cwd, args.clone);
    const concurrency = clone === undefined ? Math.max(1, Math.floor(args.concurrency ?? 2)) : 1;
    const workspaces = new Map<string, Promise<RunWorkspace>>();
    const closeWorkspace = async (runId: string): Promise<void> => {
      const workspace = workspaces.get(runId);
      workspaces.delete(runId);
      await (await workspace?.catch(() => undefined))?.close?.();
    };
    // A stage's jobs reach the worker at once: their claims find the store's connections open (two per slot, up to its pool's size).
    await store.keepConnections(concurrency * 2);
    const warmedUp = args['warm-up'] === false ? undefined : await warmUp(context);
    const queue = await createGraphileJobQueue(store.url);
    // A wide stage's nodes start and end together: their lines go out in one write.
    const lines = lineBatch(out, WORKER_LINES_WAIT_MS);
    const worker = await startNodeWorker({
      connectionString: store.url,
      db: store.db,
      ...(store.ownBackends === undefined ? {} : { ownBackends: store.ownBackends }),
      queue,
      concurrency,
      ...(args['claim-ttl'] === undefined ? {} : { claimTtlMs: args['claim-ttl'] }),
      ...(args['adopt-every'] === undefined ? {} : { adoptEveryMs: args['adopt-every'] }),
      workspaceFor: (run) => {
        let workspace = workspaces.get(run.id);
        if (workspace === undefined) {
          workspace = runWorkspace(context, run, clone);
          workspaces.set(run.id, workspace);
          void workspace.catch(() => workspaces.delete(run.id));
        }
        return workspace;
      },
      adopt: async (runId) => {
        lines.write(`worker: run ${runId} has lost its scheduler; taking it over`);
        try {
          const code = await runApprovedPlan(context, runId, { workers: 'shared' });
          lines.write(`worker: the adopted run ${runId} ended (exit ${code})`);
        } catch (error) {
          if (!(error instanceof RunClaimedError)) throw error;
        }
      },
      onRunEnded: closeWorkspace,
      report: (line) => lines.write(`worker: ${visibleText(line)}`),
    });
    const warmth = warmedUp === undefined ? '' : ` · warmed up in ${(warmedUp / 1000).toFixed(1)} s`;
    writeLine(out, `worker ${worker.id} ready · ${concurrency} at a time · ${clone === undefined ? 'shared workspace' : `clone ${clone}`}${warmth}`);
    try {
      // Ctrl-C during the warm-up stopped it; the worker then drains at once.
      if (!context.io.interrupt.aborted) await new Promise<void>((resolveStop) => context.io.interrupt.addEventListener('abort', () => resolveStop(), { once: true }));
      lines.flush();
      writeLine(out, `worker ${worker.id} draining: running nodes finish, no new ones start (Ctrl-C again stops at once)`);
      await worker.drain();
      await Promise.all([...workspaces.keys()].map(closeWorkspace));
      await queue.close();
    } finally {
      lines.flush();
    }
    writeLine(out, `worker ${worker.id} stopped`);
    return 0;
  },
});

/**
 * Before the worker takes jobs, what its first nodes would otherwise pay for on this one thread, in
 * the middle of a stage's claims: every event type's payload check and the secret shapes' patterns
 * (`warmWorkerFirstUses`); the code of a node's path run for the first time (a rehearsal,
 * `rehearseNodePath`: a fleet's first run took 60–100 ms longer than its 2nd through two workers,
 * the workers' CPU 20 % more); the sandbox probe (its answer is kept for the process); the token
 * counts of the static prompt prefix of each node kind (the tool definitions and system text, whose
 * encodings the tokenizer then keeps). Best effort, on the worker's own folder with no MCP servers
 * started: a failure is told and left for a node to meet. Returns the ms it took.
 */
async function warmUp(context: CliContext): Promise<number> {
  const started = performance.now();
  warmWorkerFirstUses();
  const rehearsal = await rehearseNodePath(context.io);
  if (!rehearsal.succeeded && !context.io.interrupt.aborted) writeLine(context.io.stderr, `worker: the warm-up rehearsal failed (${visibleText(rehearsal.error ?? 'no reason given')}); the first nodes start slower, nothing else changes`);
  try {
    const tools = await createTools(context, { mcp: false });
    const runtime = await createNodeRuntime(context, { tools, approver: createApprover(context) });
    await warmNodePrompts(runtime, { nodes: PLAN_NODE_KINDS.map((kind) => ({ kind })) });
  } catch {
    // The node that needs what failed here reports it.
  }
  return performance.now() - started;
}

/** A run's runtime and files on this worker: the run's own workspace (shared mode), or this worker's clone. */
async function runWorkspace(context: CliContext, run: RunRecord, clone: string | undefined): Promise<RunWorkspace> {
  const { db } = await context.store();
  // The run's routing, as its `run` recorded it (not this worker's own config): read beside its dispatch.
  const routed = recordedRouting(runLog(db, run.id));
  routed.catch(() => undefined);
  const dispatch = (await readEvents(db, run.id, { nodeId: null, types: ['dispatch/started'] })).at(0) as SessionEvent<'dispatch/started'> | undefined;
  const mode = dispatch?.payload.mode ?? 'shared';
  if (mode === 'clone' && clone === undefined) throw new DagentError(`run ${run.id} runs in clone mode: start this worker with --clone DIR`);
  if (mode === 'shared' && clone !== undefined) throw new DagentError(`run ${run.id} runs in a shared workspace (${run.workspace}): start this worker without --clone`);
  const workspace = clone ?? run.workspace;
  const runContext = new CliContext(context.io, {
    workspace,
    db: context.dbUrl,
    ...(context.config.model === undefined ? {} : { model: context.config.model }),
    ...(context.config.baseUrl === undefined ? {} : { baseUrl: context.config.baseUrl }),
    ...(context.config.approval === undefined ? {} : { approval: context.config.approval }),
    // `--no-sandbox` given to the worker holds for the nodes it runs (and the MCP servers it starts for them).
    ...(context.config.sandbox?.enabled === false ? { sandbox: false } : {}),
  });
  try {
    await runContext.shareStoreOf(context);
    const routing = await routed;
    const runRouting = routing === undefined ? {} : { routing: routing.enabled && routing.smallModel !== undefined, ...(routing.smallModel === undefined ? {} : { smallModel: routing.smallModel }) };
    const runtime = await createNodeRuntime(runContext, { tools: await createTools(runContext), approver: createApprover(runContext), ...runRouting });
    if (clone === undefined) {
      // Other workers' nodes change the shared workspace at the same time, unseen by this process: without git, a node's commands are not told from theirs.
      const files = new FileSnapshots({ db, runId: run.id, workspace, commandWindows: false });
      return { runtime, files, close: async () => void (await Promise.all([files.close(), runContext.close()])) };
    }
    const cloned = await new CloneWorkspace(clone, dispatch?.payload.baseCommit ?? '').open().catch((error: unknown) => {
      throw new DagentError(errorMessage(error));
    });
    return { runtime, files: cloned.files, clone: cloned, close: () => runContext.close() };
  } catch (error) {
    await runContext.close();
    throw error;
  }
}
