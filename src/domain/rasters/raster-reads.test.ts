import { describe, expect, it } from 'vitest'
import { HEAD_PAIRING_MS, RasterReadCounter, READ_WINDOW_MS } from './raster-reads.ts'

const whole = { method: 'GET', firstByte: null } as const
const fromByte = (firstByte: number) => ({ method: 'GET', firstByte }) as const
const head = { method: 'HEAD' } as const

describe('RasterReadCounter', () => {
  it('counts a download, and a range from byte 0, every time', () => {
    const reads = new RasterReadCounter()
    expect(reads.counts('a', 'k', whole, true)).toBe(true)
    expect(reads.counts('a', 'k', whole, true)).toBe(true)
    expect(reads.counts('a', 'k', fromByte(0), true)).toBe(true)
    expect(reads.counts('a', 'k', fromByte(0), true)).toBe(true)
  })

  it('counts a range elsewhere unless the raster is cached and the account read it, counted, lately', () => {
    let now = 1_000_000
    const reads = new RasterReadCounter(() => now)
    // Never read by this account: a range from byte 1 is no way round paying for one read.
    expect(reads.counts('a', 'k', fromByte(1), true)).toBe(true)
    reads.readCounted('a', 'k')
    expect(reads.counts('a', 'k', fromByte(16_384), true)).toBe(false)
    expect(reads.counts('a', 'k', fromByte(16_384), false)).toBe(true)
    expect(reads.counts('b', 'k', fromByte(16_384), true)).toBe(true)
    // Each free range renews the window; a read left alone past it pays again.
    now += READ_WINDOW_MS - 1
    expect(reads.counts('a', 'k', fromByte(16_384), true)).toBe(false)
    now += READ_WINDOW_MS + 1
    expect(reads.counts('a', 'k', fromByte(16_384), true)).toBe(true)
  })

  it('counts GDAL’s read once: the HEAD, not the first block that follows it, nor the tiles', () => {
    const reads = new RasterReadCounter()
    expect(reads.counts('a', 'k', head, false)).toBe(true)
    reads.readCounted('a', 'k')
    reads.headCounted('a', 'k')
    const counted = [
      reads.counts('a', 'k', fromByte(0), true),
      reads.counts('a', 'k', fromByte(1_048_576), true),
      reads.counts('a', 'k', fromByte(65_536), true),
    ]
    expect(counted).toEqual([false, false, false])
    // The HEAD paid for one GET from byte 0: a second is a new read.
    expect(reads.counts('a', 'k', fromByte(0), true)).toBe(true)
  })

  it('pairs nothing with a HEAD that was refused rather than counted', () => {
    const reads = new RasterReadCounter()
    expect(reads.counts('a', 'k', head, true)).toBe(true)
    expect(reads.counts('a', 'k', whole, true)).toBe(true)
  })

  it('pairs a HEAD only with the same account’s GET of the same raster, soon after', () => {
    let now = 1_000_000
    const reads = new RasterReadCounter(() => now)
    reads.headCounted('a', 'k')
    expect(reads.counts('b', 'k', whole, true)).toBe(true)
    expect(reads.counts('a', 'other', whole, true)).toBe(true)
    expect(reads.counts('a', 'k', whole, true)).toBe(false)
    reads.headCounted('a', 'k')
    now += HEAD_PAIRING_MS + 1
    expect(reads.counts('a', 'k', fromByte(0), true)).toBe(true)
  })
})
