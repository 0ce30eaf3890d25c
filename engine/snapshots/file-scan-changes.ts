import { scanChanges } from './file-boundary-changes.js';
import type { NodeBoundary } from './file-node-boundary.js';
import { scanWriteSet } from './file-scan.js';
import { ABSENT_FILE, type FileState } from './file-state.js';
import type { WorkspaceFiles } from './file-workspace.js';
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
 * What a node's command window opened with: every file's hash, and the content of the files its
 * write set does not cover, within the size limits (those it covers are stored as rows instead,
 * as a tool may write them next). Held in memory: only a change found at the node's end is stored.
 */
export interface WindowScan {
  readonly hashes: ScanHashes;
  readonly kept: ReadonlyMap<string, FileState>;
}

/**
 * Scans the whole workspace for a command window: `storeBefore` stores a covered file's content
 * as a row; an uncovered one is kept in memory. A file over `limits.file` bytes, or past
 * `limits.total` in all, is hashed only.
 */
export async function scanWindow(files: WorkspaceFiles, writeSet: WriteSet, limits: { readonly file: number; readonly total: number }, storeBefore: (path: string) => Promise<void>): Promise<WindowScan> {
  const scan = await scanWriteSet(files.root, WHOLE_WORKSPACE);
  const hashes: Record<string, string> = Object.fromEntries([...scan].map(([path, file]) => [path, file.hash]));
  const kept = new Map<string, FileState>();
  let budget = limits.total;
  for (const [path, file] of scan) {
    if (file.size > limits.file || file.size > budget) continue;
    budget -= file.size;
    if (writeSet.covers(path)) {
      await storeBefore(path);
      continue;
    }
    const state = await files.read(path).catch(() => undefined);
    // Changed since it was hashed: the content kept is the one compared at the end.
    if (state !== undefined && state.kind !== 'absent' && state.kind !== 'unrecorded') {
      kept.set(path, state);
      hashes[path] = state.hash;
    }
  }
  return { hashes, kept };
}

/**
 * The changes since a scan boundary (a workspace without git): the write set scanned again and
 * compared by hash. `held` is the scan the node's command window opened with (`CommandWindows`):
 * then the whole workspace is scanned again, and a path the write set does not cover is compared
 * with it (one it covers, with the boundary, unless the boundary was deferred). A deferred boundary
 * without `held` (no command ran) finds nothing, and reads nothing.
 */
export async function scanChangesSince(root: string, boundary: ScanBoundary, writes: readonly string[], held?: Promise<WindowScan>): Promise<BoundaryChanges> {
  if (boundary.deferred === true && held === undefined) return NO_CHANGES;
  const writeSet = createWriteSet([...new Set([...boundary.writes, ...writes])]);
  const window = held === undefined ? undefined : await held;
  const files = window === undefined ? boundary.files : boundary.deferred === true ? window.hashes : { ...outside(window.hashes, writeSet), ...boundary.files };
  const now = await scanWriteSet(root, window === undefined ? writeSet : WHOLE_WORKSPACE);
  return {
    paths: scanChanges(files, now),
    beforeOf: async (path) => {
      const kept = window?.kept.get(path);
      if (kept !== undefined && kept.kind !== 'absent' && kept.hash === files[path]) return kept;
      const hash = files[path];
      return hash === undefined ? ABSENT_FILE : { kind: 'unrecorded', hash };
    },
  };
}

/** The hashes of the paths the write set does not cover. */
function outside(hashes: ScanHashes, writeSet: WriteSet): ScanHashes {
  return Object.fromEntries(Object.entries(hashes).filter(([path]) => !writeSet.covers(path)));
}
