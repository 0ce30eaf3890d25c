import type { SessionEvent } from '../../session/event-types.js';

/** One revert as the log tells it (`revert/finished`). */
export interface RevertRecord {
  /** When it finished. */
  readonly at: string;
  /** Files put back. */
  readonly reverted: readonly string[];
  /** Files already as before. */
  readonly unchanged: readonly string[];
  /** Files left untouched: edited since in the lines the change made, or `unrestorable`. */
  readonly conflicts: readonly string[];
  /** The conflicts `--force` cannot put back either: their content before is not held (too large, or it held a secret), or a link is on the path. */
  readonly unrestorable: readonly string[];
  readonly forced: boolean;
  /** The nodes whose changes it undid. */
  readonly nodes: readonly string[];
}

/**
 * Which of the run's changes are undone now: the whole run's (`revert RUN`; `ranSince`, nodes that
 * ran again after it, their change back) and single nodes' (`revert --node`). A node that starts
 * again, or is reset for a rerun, has its own revert forgotten: its change is about to be made anew.
 */
export interface RevertsView {
  readonly run: (RevertRecord & { readonly ranSince: readonly string[] }) | null;
  readonly nodes: Readonly<Record<string, RevertRecord>>;
}

export const NO_REVERTS: RevertsView = { run: null, nodes: {} };

/** The events `reduceReverts` reads (`node/started` and `node/reset` are the run view's already). */
export const REVERT_EVENT_TYPES = ['revert/finished'] as const;

/** One event applied to the reverts. Pure; `status`, `show` and the dashboard's fold read it alike. */
export function reduceReverts(reverts: RevertsView, event: SessionEvent): RevertsView {
  switch (event.type) {
    case 'revert/finished': {
      const { scope, node, nodes, reverted, unchanged, conflicts, forced } = event.payload;
      const record: RevertRecord = { at: event.createdAt, reverted, unchanged, conflicts, unrestorable: event.payload.unrestorable ?? [], forced, nodes };
      // The whole run's revert undid every node's change, theirs included.
      if (scope === 'run' || node === null) return { run: { ...record, ranSince: [] }, nodes: {} };
      return { ...reverts, nodes: { ...reverts.nodes, [node]: record } };
    }
    case 'node/started':
    case 'node/reset': {
      const nodeId = event.nodeId;
      if (nodeId === null) return reverts;
      // Only a node the run's revert undid can bring its change back.
      const { [nodeId]: _forgotten, ...nodes } = reverts.nodes;
      const run = reverts.run === null || event.type === 'node/reset' || reverts.run.ranSince.includes(nodeId) || !reverts.run.nodes.includes(nodeId) ? reverts.run : { ...reverts.run, ranSince: [...reverts.run.ranSince, nodeId] };
      return run === reverts.run && _forgotten === undefined ? reverts : { run, nodes };
    }
    default:
      return reverts;
  }
}

/** Whether the node's change is undone now: by its own revert, or the run's (and it has not run again since). */
export function isNodeReverted(reverts: RevertsView, nodeId: string): boolean {
  return reverts.nodes[nodeId] !== undefined || (reverts.run !== null && reverts.run.nodes.includes(nodeId) && !reverts.run.ranSince.includes(nodeId));
}

/**
 * Where the run's changes stand after `dagent revert`, in a word for the run list and a run's
 * header: the whole run's undone (`run`: its revert, no node ran again since) or some nodes'
 * (`nodes`). The dashboard and `status` read it alike.
 */
export interface RevertedState {
  readonly scope: 'run' | 'nodes';
  /** The nodes whose change is undone now, sorted. */
  readonly nodes: readonly string[];
  /** Files a conflict left as edited since (the revert undid the rest). */
  readonly conflicts: readonly string[];
}

/** The run's `RevertedState`; undefined when no change of it is undone now (a revert that left every file for a conflict undid none). */
export function revertedState(reverts: RevertsView): RevertedState | undefined {
  const run = reverts.run !== null && putBackAny(reverts.run) ? reverts.run : null;
  const fromRun = run === null ? [] : run.nodes.filter((id) => !run.ranSince.includes(id));
  const own = Object.entries(reverts.nodes).filter(([, record]) => putBackAny(record));
  const nodes = [...new Set([...fromRun, ...own.map(([id]) => id)])].sort();
  if (nodes.length === 0) return undefined;
  const records = [...(fromRun.length > 0 && run !== null ? [run] : []), ...own.map(([, record]) => record)];
  const conflicts = [...new Set(records.flatMap((record) => record.conflicts))].sort();
  return { scope: run !== null && run.ranSince.length === 0 ? 'run' : 'nodes', nodes, conflicts };
}

/** Whether the revert put back a file (or found one already as before), not only left files for a conflict. */
function putBackAny(record: RevertRecord): boolean {
  return record.reverted.length + record.unchanged.length > 0;
}

/** `reverted`, `partly reverted` (a conflict kept files), `1 node reverted`, `2 nodes partly reverted`. */
export function revertedStateLabel(state: RevertedState): string {
  const partly = state.conflicts.length > 0 ? 'partly reverted' : 'reverted';
  return state.scope === 'run' ? partly : `${state.nodes.length} node${state.nodes.length === 1 ? '' : 's'} ${partly}`;
}

/** `reverted` or `partly reverted` (a conflict left files as edited since) for a node's workspace cell or row; undefined: its change stands. */
export function nodeRevertedLabel(reverts: RevertsView, nodeId: string): string | undefined {
  if (!isNodeReverted(reverts, nodeId)) return undefined;
  const record = reverts.nodes[nodeId] ?? reverts.run;
  if (record !== null && !putBackAny(record)) return undefined;
  return record !== null && record.conflicts.length > 0 ? 'partly reverted' : 'reverted';
}

/** What `foldReverts` reads, for a command that folds only the reverts (`show`). */
export const REVERTS_FOLD_TYPES = [...REVERT_EVENT_TYPES, 'node/started', 'node/reset'] as const;

/** The reverts from their events (`REVERTS_FOLD_TYPES`, in order). */
export function foldReverts(events: readonly SessionEvent[]): RevertsView {
  return events.reduce(reduceReverts, NO_REVERTS);
}
