import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryVerdict, type Sample, TARGET_RSS_MB } from './soak-memory.ts'

/** One reading a second for `seconds`, valued by `mb(second)`. */
const series = (seconds: number, mb: (second: number) => number): Sample[] =>
  Array.from({ length: seconds }, (_, second) => ({ second, mb: mb(second) }))

describe('the soak memory verdict', () => {
  it('passes a server that warms up, then holds steady under the limit', () => {
    const verdict = memoryVerdict(
      series(600, (s) => (s < 60 ? 120 + s : 180 + (s % 10))),
      120,
    )
    expect(verdict).toMatchObject({ peakPass: true, flatPass: true })
    expect(verdict.peakMb).toBe(189)
    expect(Math.abs(verdict.slopeMbPerMinute)).toBeLessThan(0.1)
  })

  it('fails a leak: memory that keeps climbing after the warm-up', () => {
    const verdict = memoryVerdict(
      series(600, (s) => 150 + s * 0.1),
      120,
    )
    expect(verdict.flatPass).toBe(false)
    expect(verdict.slopeMbPerMinute).toBeCloseTo(6, 5)
    expect(verdict.growth).toBeGreaterThan(0.05)
  })

  it('fails a peak at the limit even when the rest is flat', () => {
    const verdict = memoryVerdict(
      series(600, (s) => (s === 300 ? TARGET_RSS_MB : 200)),
      120,
    )
    expect(verdict).toMatchObject({ peakPass: false, flatPass: true, peakMb: TARGET_RSS_MB })
  })

  it('does not judge the warm-up: a climb that stops before it ends is flat', () => {
    expect(
      memoryVerdict(
        series(600, (s) => Math.min(100 + s, 200)),
        120,
      ).flatPass,
    ).toBe(true)
  })

  it('refuses a run with too few readings after the warm-up', () => {
    expect(() =>
      memoryVerdict(
        series(100, () => 100),
        120,
      ),
    ).toThrow(/fewer than 2/)
    expect(() => memoryVerdict([], 0)).toThrow(/no memory samples/)
  })

  it('never calls a series flat when its second half sits more than 5 % above its first', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 50, max: 250, noNaN: true }),
        fc.double({ min: 0.051, max: 1, noNaN: true }),
        (base, rise) => {
          const verdict = memoryVerdict(
            series(200, (s) => (s < 100 ? base : base * (1 + rise))),
            0,
          )
          return verdict.flatPass === false
        },
      ),
    )
  })
})
