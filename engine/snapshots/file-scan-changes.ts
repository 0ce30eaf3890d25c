import { scanChanges } from './file-boundary-changes.js';
import type { NodeBoundary } from './file-node-boundary.js';
import { scanWriteSet } from './file-scan.js';
import { ABSENT_FILE, type FileState } from './file-state.js';
import { createWriteSet } from './file-write-set.js';

/** The changes since a boundary, and how to get a changed file's content at the boundary. */
export interface BoundaryChanges {
  readonly paths: readonly string[];
  beforeOf(path: string): Promise<FileState>;
}

type ScanBoundary = Extract<NodeBoundary, { readonly kind: 'scan' }>;

/** The hashes a scan boundary holds: path to content hash. */
export type ScanHashes = Readonly<Record<string, string>>;

/** No change seen: a deferred boundary whose node ran no command (its tools' writes are in the snapshots' rows). */
const NO_CHANGES: BoundaryChanges = { paths: [], beforeOf: async () => ABSENT_FILE };

/**
 * The changes since a scan boundary (a workspace without git): the write set scanned again and
 * compared by hash. A deferred boundary compares against `held`, the hashes its node's first
 * command took; without them (no command ran) it finds nothing, and reads nothing.
 */
export async function scanChangesSince(root: string, boundary: ScanBoundary, writes: readonly string[], held?: Promise<ScanHashes>): Promise<BoundaryChanges> {
  if (boundary.deferred === true && held === undefined) return NO_CHANGES;
  const files = held === undefined ? boundary.files : await held;
  const now = await scanWriteSet(root, createWriteSet([...new Set([...boundary.writes, ...writes])]));
  return {
    paths: scanChanges(files, now),
    beforeOf: async (path) => {
      const hash = files[path];
      return hash === undefined ? ABSENT_FILE : { kind: 'unrecorded', hash };
    },
  };
}
