/**
 * A map of bounded size that forgets its least recently used entry first.
 *
 * @module
 */

/** A bounded least-recently-used cache. */
export class LruCache<K, V> {
  readonly #map = new Map<K, V>();
  readonly #capacity: number;

  /** Creates a cache keeping at most `capacity` entries (at least one). */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** The number of entries held. */
  get size(): number {
    return this.#map.size;
  }

  /** Returns the value for `key` and marks it most recently used. */
  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key)!;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  /** Stores `value` for `key`, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    this.#map.delete(key);
    if (this.#map.size >= this.#capacity) this.#map.delete(this.#map.keys().next().value!);
    this.#map.set(key, value);
  }
}
