import { scanChanges } from './file-boundary-changes.js';
import type { NodeBoundary } from './file-node-boundary.js';
import { scanWriteSet } from './file-scan.js';
import { ABSENT_FILE, type FileState } from './file-state.js';
import { createWriteSet, type WriteSet } from './file-write-set.js';

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

/** What a command window scans: the whole workspace (but `.git/` and `.dagent/`). */
export const WHOLE_WORKSPACE = createWriteSet(['**']);

/**
 * The changes since a scan boundary (a workspace without git): the write set scanned again and
 * compared by hash. `held` is the scan the node's command window opened with (`CommandWindows`):
 * then the whole workspace is scanned again, and a path the write set does not cover is compared
 * with it (one it covers, with the boundary, unless the boundary was deferred). A deferred boundary
 * without `held` (no command ran) finds nothing, and reads nothing.
 */
export async function scanChangesSince(root: string, boundary: ScanBoundary, writes: readonly string[], held?: Promise<ScanHashes>): Promise<BoundaryChanges> {
  if (boundary.deferred === true && held === undefined) return NO_CHANGES;
  const writeSet = createWriteSet([...new Set([...boundary.writes, ...writes])]);
  const window = held === undefined ? undefined : await held;
  const files = window === undefined ? boundary.files : boundary.deferred === true ? window : { ...outside(window, writeSet), ...boundary.files };
  const now = await scanWriteSet(root, window === undefined ? writeSet : WHOLE_WORKSPACE);
  return {
    paths: scanChanges(files, now),
    beforeOf: async (path) => {
      const hash = files[path];
      return hash === undefined ? ABSENT_FILE : { kind: 'unrecorded', hash };
    },
  };
}

/** The hashes of the paths the write set does not cover. */
function outside(hashes: ScanHashes, writeSet: WriteSet): ScanHashes {
  return Object.fromEntries(Object.entries(hashes).filter(([path]) => !writeSet.covers(path)));
}
