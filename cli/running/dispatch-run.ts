import {
  DagentError,
  DispatchedAttempts,
  runLog,
  FileSnapshots,
  applyPatchOfNode,
  createGraphileJobQueue,
  currentPlan,
  git,
  outcomeOf,
  readEvents,
  type RemoteAttempts,
  type RunRecord,
  type SessionEvent,
} from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

export type WorkspaceMode = 'shared' | 'clone';

export interface Dispatch {
  readonly remote: RemoteAttempts;
  readonly mode: WorkspaceMode;
  close(): Promise<void>;
}

/**
 * `run --workers`: this process schedules, worker processes (`dagent worker`) run the nodes.
 * The mode is the run's first dispatch's (a scheduler that takes a run over keeps it). In clone
 * mode each succeeded node's patch is applied to the user's workspace here, between a snapshot
 * boundary and its end, so `diff`, `revert` and the dashboard see the same rows as in shared mode.
 */
export async function dispatchToWorkers(context: CliContext, run: RunRecord, requested: WorkspaceMode): Promise<Dispatch> {
  const store = await context.store();
  if (store.dialect !== 'postgres') throw new DagentError('--workers needs a PostgreSQL store that the workers share: --db postgres://…');
  const { db } = store;
  const earlier = (await readEvents(db, run.id, { nodeId: null, types: ['dispatch/started'] })).at(0) as SessionEvent<'dispatch/started'> | undefined;
  const mode = earlier?.payload.mode ?? requested;
  if (earlier === undefined) {
    const baseCommit = mode === 'clone' ? await cleanBaseCommit(run.workspace) : undefined;
    await runLog(db, run.id).append({ type: 'dispatch/started', payload: { mode, ...(baseCommit === undefined ? {} : { baseCommit }) } });
  }
  const queue = await createGraphileJobQueue(store.url);
  const files = new FileSnapshots({ db, runId: run.id, workspace: run.workspace });
  const attempts = await new DispatchedAttempts({
    db,
    runId: run.id,
    queue,
    // The workers' outcomes are heard as they commit (LISTEN on the run's appends).
    listenUrl: store.url,
    ...(mode === 'clone'
      ? {
          accept: async (nodeId: string, finished: SessionEvent<'attempt/finished'>) => {
            if (finished.payload.outcome !== 'succeeded') return outcomeOf(finished);
            const { plan } = await currentPlan(db, run.id);
            const writes = plan.nodes.find((node) => node.id === nodeId)?.writes ?? [];
            const otherWrites = plan.nodes.filter((node) => node.id !== nodeId).flatMap((node) => node.writes);
            const { attempt, token, patch = '' } = finished.payload;
            await applyPatchOfNode(files, runLog(db, run.id), run.workspace, { nodeId, attempt, token, writes, otherWrites, patch });
            return outcomeOf(finished);
          },
        }
      : {}),
  }).open();
  return {
    remote: attempts,
    mode,
    async close() {
      await attempts.close();
      await queue.close();
      // Its workspace watch (a git workspace) would keep the process alive after the run.
      await files.close();
    },
  };
}

/** The commit clones start from: the workspace's HEAD, with no uncommitted change to a tracked file (clones would not see it). */
async function cleanBaseCommit(workspace: string): Promise<string> {
  const head = await git(workspace, ['rev-parse', '--verify', 'HEAD^{commit}']).catch(() => '');
  if (head.trim() === '') throw new DagentError(`clone mode needs a git repository with a commit: ${workspace} has none`);
  const changes = (await git(workspace, ['status', '--porcelain', '--untracked-files=no'])).trim();
  if (changes !== '') throw new DagentError(`clone mode starts every worker from a commit: commit (or stash) the changes in ${workspace} first`);
  return head.trim();
}
