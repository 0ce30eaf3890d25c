import type { WriteScope } from '../../agent/tool-runtime.js';
import type { PlanRules } from '../../plan/plan-rules.js';

/**
 * What the run controller needs from file snapshots: a write scope per node, a boundary taken
 * when a node starts (stored in the log, so it survives a crash), the files a node changed when
 * it ends, and putting a node's files back before it runs again.
 */
export interface NodeFiles {
  /**
   * The rules replans and delegations are checked by: where each node has its own workspace,
   * unordered nodes may write one file (merged in plan order) and no write locks hold them apart.
   * Default: nodes share the working copy.
   */
  readonly planRules?: PlanRules;
  writeScopeFor(nodeId: string, writes: readonly string[]): WriteScope;
  /** `readsOnly`: nothing the node does can change a file (`reads-only.ts`), so its workspace may be a view it shares with other such nodes. */
  beginNode(nodeId: string, writes: readonly string[], options?: { readonly readsOnly?: boolean }): Promise<unknown>;
  /** `otherWrites`: the other nodes' write globs, so a sibling's change is not taken for this node's. */
  /**
   * `beforeRecording`: runs before anything of the node's end is written; not at all when nothing
   * is, unless the node has a write set or changed files (then it may run beside the reads that
   * find out; its rejection counts only when something is to be written).
   */
  /** `strayChanges`: the recorded changes the node's declared writes do not cover. */
  /** `firstAttempt`: no attempt of the node began before this one (the log holds no boundary of it). */
  /** `quietSinceCheckpoint`: nothing ran in the node's workspace since its last step checkpoint (no call, no hook), so its files are the checkpoint's. */
  /**
   * With isolated workspaces: `merge` says the node succeeded (its change goes onto the run branch),
   * `message` is its commit message, `strictWrites` keeps a change beyond `writes` off the branch; the end names the run-branch commit (`merged`) or why the
   * change cannot merge (`conflict`, which fails the node).
   */
  endNode(
    nodeId: string,
    writes: readonly string[],
    boundary: unknown,
    options?: { readonly otherWrites?: readonly string[]; readonly merge?: boolean; readonly message?: string; readonly strictWrites?: boolean; readonly beforeRecording?: () => Promise<void>; readonly firstAttempt?: boolean; readonly quietSinceCheckpoint?: boolean },
  ): Promise<{
    readonly filesChanged: readonly string[];
    readonly strayChanges?: readonly string[];
    readonly merged?: { readonly commit: string; readonly branch: string; readonly keptYours: readonly string[] };
    readonly conflict?: string;
    /** The conflicting files and their hunks, with `conflict`. */
    readonly conflicts?: readonly { readonly path: string; readonly hunks: readonly { readonly line: number; readonly ours: string; readonly theirs: string }[] }[];
    /** With `strictWrites`: the change went beyond the node's writes and was not merged (the node fails). */
    readonly overreach?: boolean;
    /** The run branch, with isolated workspaces. */
    readonly branch?: string;
    /** Without git, with `strayChanges`: the nodes whose commands ran at the same time (the changes may be theirs). */
    readonly overlapped?: readonly string[];
  }>;
  /** The folder a node attempt runs in when it has its own (isolated workspaces); undefined: the run's workspace. */
  workspaceFor?(nodeId: string): string | undefined;
  /** Before the run starts: at most `nodesAtOnce` nodes that need a workspace of their own may run at once (isolated workspaces make them ahead). */
  prepare?(nodesAtOnce: number): void;
  restoreNode(nodeId: string, boundary: unknown): Promise<readonly string[]>;
  /**
   * The content hash each path had when the node began, as far as the files tell now: a path the
   * node changed and that is still as it left it gives its content before the node; any other path
   * its current content (`absent` when there is none). What a node's reuse key records of the files it read.
   */
  inputHashes?(nodeId: string, paths: readonly string[]): Promise<Readonly<Record<string, string>>>;
  /**
   * Undoes the node's recorded change as `revert --node` does (undone by a three-way merge onto
   * later edits), and forgets it, so its next attempt records afresh. Returns the files put back and
   * those that could not be (changed since in the same lines; left as they are).
   */
  revertNode?(nodeId: string): Promise<{ readonly reverted: readonly string[]; readonly conflicts: readonly string[] }>;
  /**
   * The node's files at a step boundary, as a checkpoint a resumed attempt can go back to (stored in
   * `step/checkpointed`); undefined when none can be taken. Without it, no step checkpoints are kept.
   */
  checkpointNode?(nodeId: string, writes: readonly string[], boundary: unknown): Promise<unknown>;
  /**
   * Readies the files of an attempt that goes on where a stopped one left off (`boundary`: where
   * that attempt began): back to a step checkpoint, to the node's start, or as left (`checkpoint`:
   * the one taken after the stopped calls, for files that went with the run's stop). Returns the
   * files put back and those that could not be. Without it, a stopped attempt always starts over.
   */
  resumeNode?(
    nodeId: string,
    writes: readonly string[],
    boundary: unknown,
    target: { readonly kind: 'checkpoint'; readonly checkpoint: unknown } | { readonly kind: 'start' } | { readonly kind: 'as-left'; readonly checkpoint?: unknown },
  ): Promise<{ readonly restored: readonly string[]; readonly unrestorable: readonly string[] }>;
  /** Ends what the snapshots keep running for the run (a workspace watch). */
  close?(): Promise<void>;
}
