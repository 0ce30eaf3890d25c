import type { ToolResult, ToolResultMeta } from '../engine/index.js';

/** `dagent tool --json` output: `{ ok, output, meta, error? }` (docs/operations.md, JSON output). */
export interface ToolResultJson {
  readonly ok: boolean;
  readonly output: string;
  readonly meta: ToolResultMeta;
  /** The outcome and the first line of the text when the call did not succeed. */
  readonly error?: string;
}

export function toolResultToJson(result: ToolResult): ToolResultJson {
  if (!result.isError) return { ok: true, output: result.content, meta: result.meta };
  const firstLine = result.content.split('\n', 1)[0] ?? '';
  return { ok: false, output: result.content, meta: result.meta, error: `${result.meta.outcome}: ${firstLine}` };
}
