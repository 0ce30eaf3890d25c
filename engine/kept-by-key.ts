/**
 * `compute` of one key, computed once per key and kept for the last `limit` keys computed (the
 * oldest dropped first). For pure work a run repeats with the same input: prepared statements,
 * token counts of the same text, matchers of the same pattern. `inputs` after the key are what
 * `compute` works from when the key only names them (a tool set by the ids of its specs); they
 * are used on the first call of a key only.
 */
export function keptByKey<K, V, I extends unknown[] = []>(limit: number, compute: (key: K, ...inputs: I) => V): (key: K, ...inputs: I) => V {
  const kept = new Map<K, V>();
  return (key, ...inputs) => {
    if (kept.has(key)) return kept.get(key)!;
    const value = compute(key, ...inputs);
    if (kept.size >= limit) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
    return value;
  };
}
