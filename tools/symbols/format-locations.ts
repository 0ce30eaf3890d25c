import { basename, isAbsolute } from 'node:path';
import type { SymbolLocation } from './symbol-service.js';

/** `src/a.ts:12:3  total(): number {` — one location per line; files outside the workspace by name only. */
export function formatLocation(location: SymbolLocation, marks = ''): string {
  const file = isAbsolute(location.file) ? `(outside the workspace) ${basename(location.file)}` : location.file;
  return `${file}:${location.line}:${location.column}${marks}  ${location.text}`;
}

/** At most `limit` lines, and a last line saying how many were left out; `truncated` for the result's meta. */
export function capLines(lines: readonly string[], limit: number, what: string): { text: string; truncated: boolean; total: number } {
  if (lines.length <= limit) return { text: lines.join('\n'), truncated: false, total: lines.length };
  return { text: `${lines.slice(0, limit).join('\n')}\n(showing ${limit} of ${lines.length} ${what}; narrow the question to see the rest)`, truncated: true, total: lines.length };
}

/** The distinct workspace files of some locations, in order. */
export function filesOf(locations: readonly SymbolLocation[]): string[] {
  return [...new Set(locations.map((location) => location.file).filter((file) => !isAbsolute(file)))];
}
