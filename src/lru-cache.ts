/**
 * A map holding at most `capacity` entries: adding one to a full cache drops the least recently used.
 * Reading an entry refreshes it once the cache is full. Before that nothing is dropped, so the order has no
 * use yet, and the reinsert that moves an entry (a Map delete and set) was most of what a read cost: an
 * entry read then counts as used when it was added.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>()

  /** `onEvict` hears of each entry dropped to make room (not of those deleted or replaced). */
  constructor(
    readonly capacity: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('an LRU cache holds at least 1 entry')
  }

  get size(): number {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value === undefined || this.entries.size < this.capacity) return value
    // A Map iterates in insertion order: re-inserting moves the entry to the most recent end.
    this.entries.delete(key)
    this.entries.set(key, value)
    return value
  }

  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next()
      if (!oldest.done) {
        const evicted = this.entries.get(oldest.value) as V
        this.entries.delete(oldest.value)
        this.onEvict?.(oldest.value, evicted)
      }
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key)
  }

  has(key: K): boolean {
    return this.entries.has(key)
  }
}
