/** How alike two lines must be (0..1) before one is offered as "did you mean". */
export const CLOSEST_LINE_MIN_SIMILARITY = 0.5;

/** Characters of the needle's line compared. */
const MAX_COMPARED_CHARS = 400;

export interface ClosestLine {
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  readonly similarity: number;
}

/**
 * The line of `content` most like the first non-blank line of `needle` (Dice similarity of
 * character pairs, whitespace-trimmed), when it is alike enough to help. Pure.
 */
export function findClosestLine(content: string, needle: string): ClosestLine | undefined {
  const first = needle.split('\n').map((line) => line.trim()).find((line) => line !== '');
  if (first === undefined) return undefined;
  // Compared with every line of the file: a bounded prefix keeps that linear in the file.
  const wanted = first.slice(0, MAX_COMPARED_CHARS);
  const wantedPairs = pairs(wanted);
  let best: ClosestLine | undefined;
  content.split('\n').forEach((text, index) => {
    const trimmed = text.trim();
    if (trimmed === '') return;
    const similarity = dice(wantedPairs, pairs(trimmed));
    if (best === undefined || similarity > best.similarity) best = { line: index + 1, text: text.replace(/\r$/, ''), similarity };
  });
  return best !== undefined && best.similarity >= CLOSEST_LINE_MIN_SIMILARITY ? best : undefined;
}

function pairs(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index += 1) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  if (text.length === 1) counts.set(text, 1);
  return counts;
}

function dice(left: Map<string, number>, right: Map<string, number>): number {
  let shared = 0;
  let total = 0;
  for (const count of left.values()) total += count;
  for (const count of right.values()) total += count;
  for (const [pair, count] of left) shared += Math.min(count, right.get(pair) ?? 0);
  return total === 0 ? 0 : (2 * shared) / total;
}
