import { createDashboardState, applyEvents, openDashboard, type Dashboard, type DashboardActions } from '../../dashboard/index.js';
import { emptyRunView, followRun, needsLivingProcess, pauseNode, readEvents, requestCancel, resumeNodes, runLog, runOwner, tellNode, type PendingApproval, type RunFollower, type SessionEvent } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { useColor } from '../context/cli-io.js';
import { rerunFromDashboard } from './rerun-from-dashboard.js';

export interface LiveDashboard {
  readonly dashboard: Dashboard;
  /** Where followed events go; after a detach the caller may point it at progress lines. */
  sink: (events: readonly SessionEvent[]) => void;
  readonly follower: RunFollower;
  stop(): Promise<void>;
}

export interface LiveDashboardOptions {
  /** Opened by the process that runs the run (the screen shows no orphan warning then). */
  readonly attached: boolean;
  /** How `c c` cancels; by default through the log and a SIGINT to the running process. */
  readonly cancel?: () => Promise<string>;
  readonly onRender?: (lastSeq: number) => void;
}

const ORPHAN_CHECK_MS = 2_000;

/**
 * Puts a run on the dashboard: its log so far folded into the screen's state, then every new
 * event as the follower reads it (from this process's live log or by seq from another). Answers
 * and cancellations from the keys are written to the run's log.
 */
export async function showLiveDashboard(context: CliContext, runId: string, options: LiveDashboardOptions): Promise<LiveDashboard> {
  const store = await context.store();
  const events = await readEvents(store.db, runId);
  const state = applyEvents(createDashboardState(emptyRunView(runId), { attached: options.attached }), events);
  const answer = async (approval: PendingApproval, decision: 'granted' | 'denied'): Promise<string> => {
    const by = `dashboard (pid ${process.pid})`;
    const payload = { toolCallId: approval.toolCallId, by, tool: approval.tool, ...(decision === 'denied' ? { reason: 'denied from the dashboard' } : {}) };
    await runLog(store.db, runId).append({ type: `approval/${decision}`, nodeId: approval.nodeId, payload });
    return `${decision === 'granted' ? 'approved' : 'denied'}: ${approval.summary}`;
  };
  const actions: DashboardActions = {
    approve: (approval) => answer(approval, 'granted'),
    deny: (approval) => answer(approval, 'denied'),
    cancel:
      options.cancel ??
      (async () => {
        const owner = await requestCancel(store.db, runId, `dashboard (pid ${process.pid})`);
        return owner === undefined ? `cancel recorded; no process runs ${runId} now` : `cancel sent to pid ${owner.pid}; the run is stopping`;
      }),
    rerun: (nodeId) => rerunFromDashboard(context, runId, nodeId),
    say: async (nodeId, text) => {
      await tellNode(store.db, runId, nodeId, text, `dashboard (pid ${process.pid})`);
      return `told ${nodeId}: it reads your message at its next step`;
    },
    pause: async (nodeId) => {
      await pauseNode(store.db, runId, nodeId, `dashboard (pid ${process.pid})`);
      return `pausing ${nodeId} at its next step; p again lets it go on`;
    },
    resume: async (nodeId) => {
      await resumeNodes(store.db, runId, { nodeId, by: `dashboard (pid ${process.pid})` });
      return `${nodeId} goes on`;
    },
  };
  const dashboard = openDashboard({
    terminal: { output: context.io.stdout, input: context.io.stdin },
    state,
    actions,
    color: useColor(context.io),
    ...(options.onRender === undefined ? {} : { onRender: options.onRender }),
  });
  const stopping = new AbortController();
  // The follower's first read may deliver events before followRun returns (appended since the read above): they go to the sink as it is then.
  let sink: LiveDashboard['sink'] = (batch) => dashboard.push(batch);
  const follower = await followRun(store, runId, { afterSeq: state.view.lastSeq, signal: stopping.signal, onEvents: (batch) => sink(batch) });
  const live: LiveDashboard = {
    dashboard,
    get sink() {
      return sink;
    },
    set sink(next) {
      sink = next;
    },
    follower,
    async stop() {
      clearInterval(orphanCheck);
      stopping.abort();
      await live.follower.stop();
      dashboard.close();
    },
  };
  const checkOrphan = async (): Promise<void> => {
    const view = dashboard.state().view;
    if (options.attached || !needsLivingProcess(view.status)) return dashboard.state().orphan === null ? undefined : dashboard.setOrphan(null);
    const owner = await runOwner(store.db, runId);
    const orphan = owner !== undefined && !owner.alive ? { pid: owner.pid } : null;
    if ((orphan === null) !== (dashboard.state().orphan === null)) dashboard.setOrphan(orphan);
  };
  const orphanCheck = setInterval(() => void checkOrphan().catch(() => undefined), ORPHAN_CHECK_MS);
  orphanCheck.unref();
  await checkOrphan();
  return live;
}
