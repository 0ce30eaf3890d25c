import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { isBinaryContent } from './file-content.js';
import { sameContent, stateBytes, type FileState } from './file-state.js';

/** Lines of context around each change, as git shows them. */
export const DIFF_CONTEXT_LINES = 3;

export type FileChangeKind = 'added' | 'modified' | 'deleted';

/** How a file's two sides could be compared: line by line, as bytes only, or not at all (a side's content was not recorded). */
export type FileDiffContent = 'text' | 'binary' | 'unrecorded';

/** One hunk of a unified diff; `lines` start with ' ', '-', '+' or '\' (no newline at end of file). */
export interface DiffHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly string[];
}

export interface FileDiff {
  readonly path: string;
  readonly change: FileChangeKind;
  readonly content: FileDiffContent;
  /** Empty unless `content` is `text`. */
  readonly hunks: readonly DiffHunk[];
  /** The nodes that changed the file, first to last. */
  readonly nodeIds: readonly string[];
  /** A side is a symbolic link: its target is diffed as the content, as git does. */
  readonly symlink?: true;
  /** Changed by a node whose declared writes do not cover it (a command's side effect). */
  readonly undeclared?: true;
}

export interface RunDiff {
  readonly runId: string;
  /** The node diffed; null for the whole run. */
  readonly nodeId: string | null;
  readonly files: readonly FileDiff[];
}

/** The diff of one file from `before` to `after`; undefined when both are the same. */
export function fileDiff(path: string, before: FileState, after: FileState, nodeIds: readonly string[]): FileDiff | undefined {
  if (sameContent(before, after)) return undefined;
  const change: FileChangeKind = before.kind === 'absent' ? 'added' : after.kind === 'absent' ? 'deleted' : 'modified';
  if (before.kind === 'unrecorded' || after.kind === 'unrecorded') return { path, change, content: 'unrecorded', hunks: [], nodeIds };
  const beforeBytes = stateBytes(before) ?? Buffer.alloc(0);
  const afterBytes = stateBytes(after) ?? Buffer.alloc(0);
  const link = before.kind === 'link' || after.kind === 'link' ? ({ symlink: true } as const) : {};
  if (isBinaryContent(beforeBytes) || isBinaryContent(afterBytes)) return { path, change, content: 'binary', hunks: [], nodeIds, ...link };
  const patch = structuredPatch(`a/${path}`, `b/${path}`, beforeBytes.toString('utf8'), afterBytes.toString('utf8'), undefined, undefined, {
    context: DIFF_CONTEXT_LINES,
  });
  const hunks = patch.hunks.map((hunk) => ({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, lines: [...hunk.lines] }));
  return { path, change, content: 'text', hunks, nodeIds, ...link };
}

/** The diff as unified-diff text with git's `a/` and `b/` prefixes, one `diff --git` section per file. */
export function renderUnifiedDiff(diff: RunDiff): string {
  return diff.files.map(renderFileDiff).join('');
}

export function renderFileDiff(file: FileDiff): string {
  const oldName = file.change === 'added' ? '/dev/null' : `a/${file.path}`;
  const newName = file.change === 'deleted' ? '/dev/null' : `b/${file.path}`;
  const header = [`diff --git a/${file.path} b/${file.path}`];
  const mode = file.symlink === true ? '120000' : '100644';
  if (file.change === 'added') header.push(`new file mode ${mode}`);
  if (file.change === 'deleted') header.push(`deleted file mode ${mode}`);
  if (file.content === 'binary') return [...header, `Binary files ${oldName} and ${newName} differ`, ''].join('\n');
  if (file.content === 'unrecorded') return [...header, `Content not shown: it was not recorded (larger than the snapshot limit)`, ''].join('\n');
  const patch = {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: file.hunks.map((hunk) => ({ ...hunk, lines: [...hunk.lines] })),
  };
  return `${header.join('\n')}\n${formatPatch(patch, FILE_HEADERS_ONLY)}`;
}
