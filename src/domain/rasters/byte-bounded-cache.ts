/**
 * A least-recently-used map bounded by the bytes of its values rather than by their number: adding one
 * drops the least recently used entries until the total fits. A value larger than the whole budget is
 * not kept.
 */
export class ByteBoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>()
  private held = 0

  constructor(
    readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) throw new RangeError('maxBytes must be a number ≥ 0')
  }

  /** The bytes held now. */
  get bytes(): number {
    return this.held
  }

  get size(): number {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    // A Map iterates in insertion order: re-inserting moves the entry to the most recent end.
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  has(key: K): boolean {
    return this.entries.has(key)
  }

  set(key: K, value: V): void {
    this.delete(key)
    const bytes = this.sizeOf(value)
    if (bytes > this.maxBytes) return
    this.entries.set(key, { value, bytes })
    this.held += bytes
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break
      this.entries.delete(oldest)
      this.held -= entry.bytes
    }
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key)
    if (!entry) return false
    this.entries.delete(key)
    this.held -= entry.bytes
    return true
  }

  /** Drops every entry whose key `stale` picks. */
  deleteWhere(stale: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (stale(key)) this.delete(key)
  }
}
