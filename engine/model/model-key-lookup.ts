/**
 * Finds the entry for a model in a table keyed by `provider:model` (or by the bare model name, as
 * users write overrides). A key matches the model exactly or as a family prefix followed by `-`
 * or an Ollama tag `:` (`claude-sonnet-4-5` covers `claude-sonnet-4-5-20250929`, `qwen2.5-coder`
 * covers `qwen2.5-coder:7b`); the longest matching key wins, so `gpt-4.1-mini` is not priced as
 * `gpt-4.1`.
 */
export function lookupByModelKey<T>(table: Readonly<Record<string, T>>, provider: string, model: string): T | undefined {
  return longestMatch(table, `${provider}:${model}`) ?? longestMatch(table, model);
}

/** Looked up for every model call's price: no string is built per key of the table. */
function longestMatch<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  let bestKey: string | undefined;
  for (const key of Object.keys(table)) {
    if (!name.startsWith(key)) continue;
    const after = name.length === key.length ? '' : name[key.length];
    if (after !== '' && after !== '-' && after !== ':') continue;
    if (bestKey === undefined || key.length > bestKey.length) bestKey = key;
  }
  return bestKey === undefined ? undefined : table[bestKey];
}
