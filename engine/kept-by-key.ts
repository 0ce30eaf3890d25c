/** `compute` of a key, kept: see `keptByKey`. */
export interface KeptByKey<K, V, I extends unknown[] = []> {
  (key: K, ...inputs: I): V;
  /** The value kept for `key`, without computing it. */
  peek(key: K): V | undefined;
  /** Keeps `value` for `key` as if computed (a caller that computed it another way, such as without blocking). */
  keep(key: K, value: V): void;
}

/**
 * `compute` of one key, computed once per key and kept for the last `limit` keys computed (the
 * oldest dropped first). For pure work a run repeats with the same input: prepared statements,
 * token counts of the same text, matchers of the same pattern. `inputs` after the key are what
 * `compute` works from when the key only names them (a tool set by the ids of its specs); they
 * are used on the first call of a key only.
 */
export function keptByKey<K, V, I extends unknown[] = []>(limit: number, compute: (key: K, ...inputs: I) => V): KeptByKey<K, V, I> {
  const kept = new Map<K, V>();
  const keep = (key: K, value: V): void => {
    if (!kept.has(key) && kept.size >= limit) kept.delete(kept.keys().next().value!);
    kept.set(key, value);
  };
  const computed = (key: K, ...inputs: I): V => {
    if (kept.has(key)) return kept.get(key)!;
    const value = compute(key, ...inputs);
    keep(key, value);
    return value;
  };
  return Object.assign(computed, { peek: (key: K) => kept.get(key), keep });
}
