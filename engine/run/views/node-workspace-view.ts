import type { SessionEvent } from '../../session/event-types.js';

/**
 * Where an isolated node's own workspace stands: `clean` (nothing changed yet, or nothing to
 * merge), `changed` (files differ from where it began, as of its last step checkpoint), `merged`
 * (its commit is on the run branch), `conflict` (its change could not merge) or `discarded` (it
 * failed, or went beyond strict writes, and its changes were dropped).
 */
export type NodeWorkspaceState = 'clean' | 'changed' | 'merged' | 'conflict' | 'discarded';

export interface NodeWorkspaceView {
  readonly state: NodeWorkspaceState;
  /** How many files: changed so far, merged, in conflict or dropped. */
  readonly files: number;
  /** The node's commit on the run branch (`merged`). */
  readonly commit?: string;
  /** The run branch (`merged`, `conflict`). */
  readonly branch?: string;
  /** Files the user had edited meanwhile, left as they were (`merged`). */
  readonly keptYours?: readonly string[];
  /** The files changed on both sides (`conflict`). */
  readonly conflicts?: readonly string[];
  /** Why its changes were dropped (`discarded`). */
  readonly reason?: 'failed' | 'overreach';
}

/** The events that move a node's workspace state; the run view reads them with its others. */
export const NODE_WORKSPACE_EVENT_TYPES = ['node/snapshotted', 'step/checkpointed', 'node/merged', 'node/conflicted', 'workspace/discarded'] as const;

const CLEAN: NodeWorkspaceView = { state: 'clean', files: 0 };

/**
 * One event applied to a node's workspace state (null: the node has no workspace of its own, it
 * runs shared or has not started). Pure; the run view folds it per node, so `status`, `inspect`
 * and the dashboard agree. A node's transitions settle an open workspace: an attempt that ended
 * with no merge, conflict or drop had nothing to merge (`clean`); a reset forgets it.
 */
export function reduceNodeWorkspace(workspace: NodeWorkspaceView | null, event: SessionEvent): NodeWorkspaceView | null {
  switch (event.type) {
    case 'node/snapshotted':
      return kindOf(event.payload.boundary) === 'worktree' ? CLEAN : null;
    case 'step/checkpointed': {
      const changed = (event.payload.boundary as { changedFiles?: unknown } | null)?.changedFiles;
      if (!isOpen(workspace) || kindOf(event.payload.boundary) !== 'worktree-step' || typeof changed !== 'number') return workspace;
      return changed === 0 ? CLEAN : { state: 'changed', files: changed };
    }
    case 'node/merged': {
      const { commit, branch, files, keptYours } = event.payload;
      return { state: 'merged', files: files.length, commit, branch, keptYours };
    }
    case 'node/conflicted':
      return { state: 'conflict', files: event.payload.files.length, branch: event.payload.branch, conflicts: event.payload.files.map((file) => file.path) };
    case 'workspace/discarded':
      return { state: 'discarded', files: event.payload.files.length, reason: event.payload.reason };
    case 'node/succeeded':
    case 'node/failed':
      return isOpen(workspace) ? CLEAN : workspace;
    case 'node/reset':
      return null;
    default:
      return workspace;
  }
}

/**
 * The state in a few words, for a status cell or a dashboard row: `clean`, `changed 3 files`,
 * `merged 2 files`, `conflict in 1 file`, `discarded 2 files`.
 */
export function nodeWorkspaceLabel(workspace: NodeWorkspaceView): string {
  const files = `${workspace.files} file${workspace.files === 1 ? '' : 's'}`;
  switch (workspace.state) {
    case 'clean':
      return 'clean';
    case 'changed':
      return `changed ${files}`;
    case 'merged':
      return `merged ${files}`;
    case 'conflict':
      return `conflict in ${files}`;
    case 'discarded':
      return `discarded ${files}`;
  }
}

/** The commit as people name it: its first 12 hex digits. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

/**
 * One line about a node's workspace that names its commit: `merged 2 files as 1a2b3c4d5e6f on
 * dagent/r-7f3a`, `conflict in f.txt on dagent/r-7f3a`, else the label.
 */
export function nodeWorkspaceLine(workspace: NodeWorkspaceView): string {
  if (workspace.state === 'merged' && workspace.commit !== undefined) return `${nodeWorkspaceLabel(workspace)} as ${shortCommit(workspace.commit)} on ${workspace.branch ?? 'the run branch'}`;
  if (workspace.state === 'conflict') return `conflict in ${(workspace.conflicts ?? []).join(', ')} with ${workspace.branch ?? 'the run branch'} (not merged)`;
  if (workspace.state === 'discarded') return `${nodeWorkspaceLabel(workspace)} (${workspace.reason === 'overreach' ? 'beyond its declared writes under strictWrites' : 'the node failed'}; not merged)`;
  return nodeWorkspaceLabel(workspace);
}

function isOpen(workspace: NodeWorkspaceView | null): boolean {
  return workspace !== null && (workspace.state === 'clean' || workspace.state === 'changed');
}

function kindOf(boundary: unknown): unknown {
  return typeof boundary === 'object' && boundary !== null ? (boundary as { kind?: unknown }).kind : undefined;
}

/** What `foldNodeWorkspace` reads: the workspace events and the transitions that settle or forget one. */
export const NODE_WORKSPACE_FOLD_TYPES = [...NODE_WORKSPACE_EVENT_TYPES, 'node/succeeded', 'node/failed', 'node/reset'] as const;

/** One node's workspace state from its events (`NODE_WORKSPACE_FOLD_TYPES`, in order); null: it has none. */
export function foldNodeWorkspace(events: readonly SessionEvent[]): NodeWorkspaceView | null {
  return events.reduce<NodeWorkspaceView | null>(reduceNodeWorkspace, null);
}
