/**
 * The points seen so far, to 5 decimals (about 1 m), each with the row that brought it: an open-addressing
 * hash set over typed arrays, 12 bytes a slot at most half full (about 25 MB for 1,000,000 points, where
 * a Set of text keys takes several times that).
 */
export class PointKeys {
  private keys: Float64Array
  private rows: Int32Array
  private mask: number
  size = 0

  constructor(initialCapacity = 1 << 16) {
    let capacity = 16
    while (capacity < initialCapacity) capacity *= 2
    this.keys = new Float64Array(capacity).fill(-1)
    this.rows = new Int32Array(capacity)
    this.mask = capacity - 1
  }

  /** The point as one number: whole units of 1e-5 degree, latitude and longitude side by side (< 2^53). */
  static key(latitude: number, longitude: number): number {
    const lat = Math.round(latitude * 1e5) + 9_000_000
    const lon = Math.round(longitude * 1e5) + 18_000_000
    return lat * 36_000_001 + lon
  }

  private static slot(key: number, mask: number): number {
    const lon = key % 36_000_001
    const lat = (key - lon) / 36_000_001
    return (Math.imul(lat | 0, 0x9e3779b1) ^ Math.imul(lon | 0, 0x85ebca77) ^ ((lat ^ lon) >>> 15)) & mask
  }

  /** The row that brought the point first; or adds the point with `row` and answers 0. */
  firstRowOrAdd(latitude: number, longitude: number, row: number): number {
    const key = PointKeys.key(latitude, longitude)
    let slot = PointKeys.slot(key, this.mask)
    for (;;) {
      const held = this.keys[slot] as number
      if (held === key) return this.rows[slot] as number
      if (held === -1) break
      slot = (slot + 1) & this.mask
    }
    this.keys[slot] = key
    this.rows[slot] = row
    this.size += 1
    if (this.size * 2 > this.keys.length) this.grow()
    return 0
  }

  /** Bytes held by the arrays. */
  get bytes(): number {
    return this.keys.byteLength + this.rows.byteLength
  }

  private grow(): void {
    const keys = this.keys
    const rows = this.rows
    this.keys = new Float64Array(keys.length * 2).fill(-1)
    this.rows = new Int32Array(keys.length * 2)
    this.mask = this.keys.length - 1
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number
      if (key === -1) continue
      let slot = PointKeys.slot(key, this.mask)
      while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask
      this.keys[slot] = key
      this.rows[slot] = rows[i] as number
    }
  }
}
