import type { GitObjects } from './git-objects.js';

/** One place where two changes touched the same lines. */
export interface ConflictHunk {
  /** The 1-based line of the conflict's first marker in the merged file. */
  readonly line: number;
  /** The lines as the run had them (what merged before). */
  readonly ours: string;
  /** The lines as the node left them. */
  readonly theirs: string;
}

/** A file the node's change could not be merged into: its hunks, or why there are none (binary, deleted on one side). */
export interface MergeConflict {
  readonly path: string;
  readonly hunks: readonly ConflictHunk[];
}

/** A node's change merged into the run branch: the run-branch commit it became and the files it changed there. */
export type MergeOutcome =
  | { readonly status: 'merged'; readonly commit: string; readonly parent: string; readonly files: readonly string[] }
  /** The change was already on the run branch (nothing to commit). */
  | { readonly status: 'unchanged'; readonly commit: string }
  | { readonly status: 'conflict'; readonly conflicts: readonly MergeConflict[] };

/** The conflicts of `paths` in a merged `tree` (git's markers in their files), hunk by hunk. */
export async function conflictsIn(objects: Pick<GitObjects, 'entriesAt'>, tree: string, paths: readonly string[]): Promise<MergeConflict[]> {
  const entries = await objects.entriesAt(tree, paths);
  return paths.map((path) => {
    const entry = entries.get(path) ?? null;
    return { path, hunks: entry === null ? [] : conflictHunks(entry.bytes.toString('utf8')) };
  });
}

/**
 * The conflict hunks of a file git merged with conflict markers (`<<<<<<<`, `=======`,
 * `>>>>>>>`; `|||||||` for diff3 bases is skipped). Pure: the merged text in, hunks out.
 */
export function conflictHunks(merged: string): ConflictHunk[] {
  const lines = merged.split('\n');
  const hunks: ConflictHunk[] = [];
  let start = -1;
  let side: 'ours' | 'base' | 'theirs' = 'ours';
  let ours: string[] = [];
  let theirs: string[] = [];
  lines.forEach((line, index) => {
    if (line.startsWith('<<<<<<< ') || line === '<<<<<<<') {
      start = index;
      side = 'ours';
      ours = [];
      theirs = [];
    } else if (start < 0) {
      return;
    } else if (line.startsWith('||||||| ') || line === '|||||||') {
      side = 'base';
    } else if (line === '=======') {
      side = 'theirs';
    } else if (line.startsWith('>>>>>>> ') || line === '>>>>>>>') {
      hunks.push({ line: start + 1, ours: ours.join('\n'), theirs: theirs.join('\n') });
      start = -1;
    } else if (side === 'ours') {
      ours.push(line);
    } else if (side === 'theirs') {
      theirs.push(line);
    }
  });
  return hunks;
}

/** The conflicts as a node's failure reason: each file, each hunk's lines on both sides (cut to a few lines). */
export function describeConflicts(nodeId: string, conflicts: readonly MergeConflict[]): string {
  const parts = conflicts.map((conflict) => {
    if (conflict.hunks.length === 0) return `${conflict.path}: changed on both sides (no line hunks: binary, or deleted on one side)`;
    const hunks = conflict.hunks.map((hunk) => `  line ${hunk.line}:\n    run has:  ${excerpt(hunk.ours)}\n    node has: ${excerpt(hunk.theirs)}`);
    return `${conflict.path}:\n${hunks.join('\n')}`;
  });
  return `merge conflict: node ${nodeId} changed the same lines as nodes merged before it; a node that reconciles them can be appended by a replan\n${parts.join('\n')}`;
}

const EXCERPT_LINES = 4;

function excerpt(text: string): string {
  const lines = text.split('\n');
  const shown = lines.slice(0, EXCERPT_LINES).join(' ⏎ ');
  return lines.length > EXCERPT_LINES ? `${shown} ⏎ … (${lines.length - EXCERPT_LINES} more lines)` : shown;
}
