/** Longest tool name the providers accept. */
export const MAX_TOOL_NAME_CHARS = 64;

/**
 * `<server>__<tool>` in the tool-name alphabet (lowercase letters, digits, `_`), cut to 64
 * characters; `taken` names get a numbered suffix. Pure.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const prefix = `${normalize(server) || 'server'}__`;
  const base = `${prefix}${normalize(tool) || 'tool'}`.slice(0, MAX_TOOL_NAME_CHARS);
  const start = /^[a-z]/.test(base) ? base : `m${base}`.slice(0, MAX_TOOL_NAME_CHARS);
  let name = start;
  for (let count = 2; taken.has(name); count += 1) {
    const suffix = `_${count}`;
    name = `${start.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
  }
  return name;
}

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
}

/** True for names of MCP tools (`<server>__<tool>`); dagent's own tools never contain `__`. */
export function isMcpToolName(name: string): boolean {
  return name.includes('__');
}
