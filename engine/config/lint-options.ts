/**
 * The config's `lint.errors` resolved against the lint codes there are: the known codes it lists,
 * or `all` when it says `all` anywhere. Unknown codes are ignored; no `lint.errors`, no options.
 * The result is the `errors` option of plan lint (planners' `LintOptions`).
 */
export function lintOptions<Code extends string>(errors: readonly string[] | undefined, known: readonly Code[]): { readonly errors?: readonly Code[] | 'all' } {
  if (errors === undefined) return {};
  if (errors.includes('all')) return { errors: 'all' };
  return { errors: known.filter((code) => errors.includes(code)) };
}
