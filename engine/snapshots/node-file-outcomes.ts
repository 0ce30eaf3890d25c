/** What `FileSnapshots` tells of a node attempt's files: its end, a restore, where a resumed attempt's files go. */

export interface NodeEnd {
  /** The node's files whose content differs from before the node, sorted. */
  readonly filesChanged: readonly string[];
  /** The node's changes that its declared writes do not cover, sorted: recorded like the others. */
  readonly strayChanges: readonly string[];
  /** Without git, with stray changes: the nodes whose commands ran at the same time (the changes may be theirs), sorted. */
  readonly overlapped?: readonly string[];
}

export interface NodeRestore {
  /** Files put back to their content before the node (created files deleted). */
  readonly restored: readonly string[];
  /** Files whose content before the node was not recorded (or held a secret), left as they are. */
  readonly unrestorable: readonly string[];
}

/** Where a resumed attempt's files go: a step checkpoint, the node's start, or as the stopped process left them. */
export type StepFilesTarget = { readonly kind: 'checkpoint'; readonly checkpoint: unknown } | { readonly kind: 'start' } | { readonly kind: 'as-left'; readonly checkpoint?: unknown };

export interface EndNodeOptions {
  /** The write globs of the run's other nodes: their changes are theirs, not stray. */
  readonly otherWrites?: readonly string[];
  /**
   * Runs once before the first row is written (a worker checks its claim there); not at all when
   * the node changed nothing and has nothing recorded.
   */
  readonly beforeRecording?: () => Promise<void>;
  /**
   * No attempt of the node began before this one (the log holds no boundary of it). A node with no
   * writes then has no stored row but those its changes would add: when it changed nothing, its
   * end reads nothing from the store.
   */
  readonly firstAttempt?: boolean;
}
