/**
 * `compute` of one key, computed once per key and kept for the last `limit` keys computed (the
 * oldest dropped first). For pure work a run repeats with the same input: prepared statements,
 * token counts of the same text, matchers of the same pattern.
 */
export function keptByKey<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key)!;
    const value = compute(key);
    if (kept.size >= limit) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
    return value;
  };
}
