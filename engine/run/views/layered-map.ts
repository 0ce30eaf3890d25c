/**
 * An immutable map whose `with` shares most of its entries with the map it came from: the entries
 * changed since the last flattening sit in a small layer over a shared base, and the layer is
 * folded into a new base once it outgrows the square root of the base. The run view folds one event
 * at a time, and copying every node's entry for each event made a run's fold grow with the square
 * of its size. Iterates as a `Map` would: the base's keys in their order (a changed entry in its
 * place), then the keys added since, in the order they were added.
 */
export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
  readonly #base: ReadonlyMap<K, V>;
  readonly #layer: ReadonlyMap<K, V>;
  readonly #added: number;

  private constructor(base: ReadonlyMap<K, V>, layer: ReadonlyMap<K, V>, added: number) {
    this.#base = base;
    this.#layer = layer;
    this.#added = added;
  }

  /** `map` as a layered map (the same one when it already is). */
  static from<K, V>(map: ReadonlyMap<K, V>): LayeredMap<K, V> {
    return map instanceof LayeredMap ? (map as LayeredMap<K, V>) : new LayeredMap(map, new Map(), 0);
  }

  /** A map with `key` set to `value`; this one is left as it was. */
  with(key: K, value: V): LayeredMap<K, V> {
    const layer = new Map(this.#layer);
    layer.set(key, value);
    const added = this.#added + (this.#layer.has(key) || this.#base.has(key) ? 0 : 1);
    if (layer.size <= Math.sqrt(this.#base.size) + LAYER_SLACK) return new LayeredMap(this.#base, layer, added);
    const base = new Map(this.#base);
    for (const [layered, layeredValue] of layer) base.set(layered, layeredValue);
    return new LayeredMap(base, new Map(), 0);
  }

  get size(): number {
    return this.#base.size + this.#added;
  }

  get(key: K): V | undefined {
    return this.#layer.has(key) ? this.#layer.get(key) : this.#base.get(key);
  }

  has(key: K): boolean {
    return this.#layer.has(key) || this.#base.has(key);
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#all()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[K, V]> {
    return this.#all();
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.#all()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.#all()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#all();
  }

  *#all(): MapIterator<[K, V]> {
    for (const [key, value] of this.#base) yield [key, this.#layer.has(key) ? (this.#layer.get(key) as V) : value];
    for (const [key, value] of this.#layer) if (!this.#base.has(key)) yield [key, value];
  }
}

/** Entries a layer holds beyond √(base size) before it is folded into a new base. */
const LAYER_SLACK = 8;
