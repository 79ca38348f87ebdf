import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nextUtcMidnight, secondsUntilReset, utcDay } from './day-window.ts'

describe('day window', () => {
  it('names the UTC day of any instant, whatever instants came before it', () => {
    const instant = fc
      .integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) })
      .map((t) => new Date(t))
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const at of instants) expect(utcDay(at)).toBe(at.toISOString().slice(0, 10))
      }),
    )
  })

  it('turns over exactly at midnight UTC', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22')
    expect(utcDay(new Date('2026-11-23T00:00:00.000Z'))).toBe('2026-11-23')
    expect(utcDay(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22')
    expect(nextUtcMidnight(new Date('2026-11-22T12:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z')
    expect(secondsUntilReset(new Date('2026-11-22T23:59:59.999Z'))).toBe(1)
  })
})
