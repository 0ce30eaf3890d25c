import type { WriteScope } from '../../agent/tool-runtime.js';

/**
 * What the run controller needs from file snapshots: a write scope per node, a boundary taken
 * when a node starts (stored in the log, so it survives a crash), the files a node changed when
 * it ends, and putting a node's files back before it runs again.
 */
export interface NodeFiles {
  writeScopeFor(nodeId: string, writes: readonly string[]): WriteScope;
  beginNode(nodeId: string, writes: readonly string[]): Promise<unknown>;
  /** `otherWrites`: the other nodes' write globs, so a sibling's change is not taken for this node's. */
  /** `strayChanges`: the recorded changes the node's declared writes do not cover. */
  endNode(
    nodeId: string,
    writes: readonly string[],
    boundary: unknown,
    options?: { readonly otherWrites?: readonly string[] },
  ): Promise<{ readonly filesChanged: readonly string[]; readonly strayChanges?: readonly string[] }>;
  restoreNode(nodeId: string, boundary: unknown): Promise<readonly string[]>;
  /** Ends what the snapshots keep running for the run (a workspace watch). */
  close?(): Promise<void>;
}
