import type { FileDiff, RunDiff } from '../../engine/index.js';
import { sum } from './counts.js';

/** `diff --json`: the RunDiff with its field names spelled out, so the document stays stable. */
export function diffJson(diff: RunDiff): unknown {
  return {
    runId: diff.runId,
    nodeId: diff.nodeId,
    files: diff.files.map((file) => ({
      path: file.path,
      change: file.change,
      content: file.content,
      nodeIds: file.nodeIds,
      ...(file.undeclared === true ? { undeclared: true } : {}),
      hunks: file.hunks.map((hunk) => ({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines: hunk.lines })),
    })),
  };
}

export interface FileStat {
  readonly path: string;
  readonly change: FileDiff['change'];
  readonly content: FileDiff['content'];
  readonly added: number;
  readonly removed: number;
  readonly nodeIds: readonly string[];
}

/** Lines added and removed in a file's hunks (0 and 0 for binary or unrecorded content). */
export function fileStat(file: FileDiff): FileStat {
  let added = 0;
  let removed = 0;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
    }
  }
  return { path: file.path, change: file.change, content: file.content, added, removed, nodeIds: file.nodeIds };
}

/** `diff --stat --json`: per file and in total, without the hunks. */
export function diffStatJson(diff: RunDiff): unknown {
  const files = diff.files.map(fileStat);
  return {
    runId: diff.runId,
    nodeId: diff.nodeId,
    files,
    totals: { files: files.length, added: sum(files.map((file) => file.added)), removed: sum(files.map((file) => file.removed)) },
  };
}
