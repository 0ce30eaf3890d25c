/** The `code` of a Node error (`ENOENT`, `EACCES`, …), or undefined when it has none. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
