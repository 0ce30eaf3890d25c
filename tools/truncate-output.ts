/** Default cap on what one tool result shows the model. */
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
export const DEFAULT_MAX_OUTPUT_LINES = 2_000;

export interface TruncationLimits {
  readonly maxChars: number;
  readonly maxLines: number;
}

export interface TruncatedOutput {
  readonly content: string;
  readonly truncated: boolean;
  /** Characters of the text before truncation. */
  readonly originalLength: number;
  readonly originalLines: number;
}

/** Room kept for the marker line so the result stays under the cap. */
const MARKER_RESERVE_CHARS = 240;

/**
 * Caps a tool's text, keeping its head and its tail (errors usually sit at the end of command
 * output, context at the start) around one marker line that says what was left out. Pure.
 */
export function truncateOutput(text: string, limits: TruncationLimits = { maxChars: DEFAULT_MAX_OUTPUT_CHARS, maxLines: DEFAULT_MAX_OUTPUT_LINES }): TruncatedOutput {
  const lines = text.split('\n');
  const untouched = { content: text, truncated: false, originalLength: text.length, originalLines: lines.length };
  if (text.length <= limits.maxChars && lines.length <= limits.maxLines) return untouched;

  const charBudget = Math.max(limits.maxChars - MARKER_RESERVE_CHARS, 2);
  const headChars = takeLines(lines, Math.ceil((limits.maxLines - 1) / 2), Math.ceil(charBudget / 2));
  const tailChars = takeLines([...lines].reverse(), Math.floor((limits.maxLines - 1) / 2), Math.floor(charBudget / 2));
  // An enormous first or last line: cut inside it rather than show nothing of that end.
  const headEnd = headChars > 0 ? headChars : Math.ceil(charBudget / 2);
  const tailStart = Math.max(tailChars > 0 ? text.length - tailChars : text.length - Math.floor(charBudget / 2), headEnd);
  const head = text.slice(0, headEnd);
  let tail = text.slice(tailStart);
  if (tailChars > 0 && tail.startsWith('\n')) tail = tail.slice(1);
  const omittedChars = text.length - head.length - tail.length;
  const omittedLines = lines.length - countLines(head) - countLines(tail);
  const marker =
    `[… output truncated: ${omittedLines > 0 ? `${omittedLines} lines, ` : ''}${omittedChars} characters omitted ` +
    `(${lines.length} lines, ${text.length} characters in all); showing the start and the end …]`;
  const content = `${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${marker}\n${tail}`;
  return { content, truncated: true, originalLength: text.length, originalLines: lines.length };
}

/** Characters covered by whole lines (with their newline) from the start, within both budgets. */
function takeLines(lines: readonly string[], maxLines: number, maxChars: number): number {
  let chars = 0;
  for (let index = 0; index < Math.min(lines.length, maxLines); index += 1) {
    const next = chars + lines[index]!.length + 1;
    if (next > maxChars) break;
    chars = next;
  }
  return chars;
}

function countLines(text: string): number {
  if (text === '') return 0;
  let count = 1;
  for (const char of text) if (char === '\n') count += 1;
  return text.endsWith('\n') ? count - 1 : count;
}
