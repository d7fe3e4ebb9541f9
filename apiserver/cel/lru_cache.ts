/**
 * A map of bounded size that forgets its least recently used entries first.
 *
 * @module
 */

/**
 * A least-recently-used cache bounded by its number of entries and, optionally, by the total
 * weight of its entries (a weight is given with each value, for example a pattern's length).
 */
export class LruCache<K, V> {
  readonly #map = new Map<K, { value: V; weight: number }>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;
  #weight = 0;

  /** Creates a cache of at most `maxEntries` entries (at least one) weighing `maxWeight`. */
  constructor(maxEntries: number, maxWeight = Infinity) {
    this.#maxEntries = Math.max(1, Math.floor(maxEntries));
    this.#maxWeight = maxWeight;
  }

  /** The number of entries held. */
  get size(): number {
    return this.#map.size;
  }

  /** The total weight of the entries held. */
  get weight(): number {
    return this.#weight;
  }

  /** Returns the value for `key` and marks it most recently used. */
  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, entry);
    return entry.value;
  }

  /**
   * Stores `value` for `key`, evicting least recently used entries to stay within the bounds.
   * A value heavier than the whole cache may hold is not stored.
   */
  set(key: K, value: V, weight = 1): void {
    this.#remove(key);
    if (weight > this.#maxWeight) return;
    while (
      this.#map.size > 0 &&
      (this.#map.size >= this.#maxEntries || this.#weight + weight > this.#maxWeight)
    ) {
      this.#remove(this.#map.keys().next().value!);
    }
    this.#map.set(key, { value, weight });
    this.#weight += weight;
  }

  #remove(key: K): void {
    const entry = this.#map.get(key);
    if (entry === undefined) return;
    this.#map.delete(key);
    this.#weight -= entry.weight;
  }
}
