import { diffArrays } from 'diff';

/** Lines `start..end` of the base (its indexes, end excluded) replaced by `lines` (empty range: an insertion before `start`). */
interface LineHunk {
  readonly start: number;
  readonly end: number;
  readonly lines: readonly string[];
}

export interface ReverseMergeInput {
  /** The file before the change. */
  readonly before: string;
  /** The file as the change left it: the merge base. */
  readonly after: string;
  /** The file now, with the edits made since the change. */
  readonly current: string;
}

/**
 * The change `before` → `after` undone on `current`, a three-way merge whose base is `after`:
 * the lines the change touched go back to `before`, every edit made since elsewhere stays. Unlike
 * a patch with context (or `git merge-file`, which treats touching hunks as one), an edit on the
 * line next to one the change made is not a conflict: only lines the change made that were changed
 * again since (or text inserted at the very place the change's lines go back to) are. Returns the
 * merged text, or null on such a conflict. Pure; lines keep their own endings.
 */
export function reverseMerge(input: ReverseMergeInput): string | null {
  const base = splitLines(input.after);
  const hunks = [...hunksOf(base, splitLines(input.before)), ...hunksOf(base, splitLines(input.current))].sort(byPlace);
  const kept: LineHunk[] = [];
  let reach = 0;
  for (const hunk of hunks) {
    const previous = kept.at(-1);
    if (previous !== undefined && sameHunk(previous, hunk)) continue; // both sides made the same edit: once
    const overlaps = hunk.start < reach;
    const bothInsertHere = previous !== undefined && isInsertion(previous) && isInsertion(hunk) && previous.start === hunk.start;
    if (overlaps || bothInsertHere) return null;
    kept.push(hunk);
    reach = Math.max(reach, hunk.end);
  }
  const merged: string[] = [];
  let cursor = 0;
  for (const hunk of kept) {
    merged.push(...base.slice(cursor, hunk.start), ...hunk.lines);
    cursor = hunk.end;
  }
  merged.push(...base.slice(cursor));
  return merged.join('');
}

/** The lines of a text, each with its line ending (the last one may have none). */
function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

/** Where `side` differs from `base`, as hunks in base order (one side's hunks never overlap). */
function hunksOf(base: readonly string[], side: readonly string[]): LineHunk[] {
  const hunks: LineHunk[] = [];
  let index = 0;
  let open: { start: number; end: number; lines: string[] } | null = null;
  for (const change of diffArrays(base as string[], side as string[])) {
    if (!change.added && !change.removed) {
      if (open !== null) hunks.push(open);
      open = null;
      index += change.value.length;
      continue;
    }
    open ??= { start: index, end: index, lines: [] };
    if (change.added) open.lines.push(...change.value);
    else {
      open.end += change.value.length;
      index += change.value.length;
    }
  }
  if (open !== null) hunks.push(open);
  return hunks.flatMap((hunk) => lineByLine(base, hunk));
}

/**
 * A hunk that replaces as many lines as it covers, one hunk per line it changes: the lines pair up,
 * so a side that made the same edit to one of them (a revert by hand, a partial revert before)
 * agrees with it line for line instead of overlapping the whole block.
 */
function lineByLine(base: readonly string[], hunk: LineHunk): LineHunk[] {
  if (hunk.lines.length !== hunk.end - hunk.start || hunk.lines.length < 2) return [hunk];
  return hunk.lines.flatMap((line, offset) => (line === base[hunk.start + offset] ? [] : [{ start: hunk.start + offset, end: hunk.start + offset + 1, lines: [line] }]));
}

/** By start; at one place an insertion goes before the lines replaced there. */
function byPlace(left: LineHunk, right: LineHunk): number {
  return left.start - right.start || Number(!isInsertion(left)) - Number(!isInsertion(right));
}

function isInsertion(hunk: LineHunk): boolean {
  return hunk.start === hunk.end;
}

function sameHunk(left: LineHunk, right: LineHunk): boolean {
  return left.start === right.start && left.end === right.end && left.lines.length === right.lines.length && left.lines.every((line, index) => line === right.lines[index]);
}
