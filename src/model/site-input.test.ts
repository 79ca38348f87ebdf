import { describe, expect, it } from 'vitest'
import { SPECIES } from '../domain/species.ts'
import { readArtifact } from './artifact.ts'
import { clampSite, referenceSiteFor } from './site-input.ts'

const { inputRanges, referenceSite } = readArtifact()
const inRange = referenceSiteFor(referenceSite, SPECIES[0] as (typeof SPECIES)[number])

describe('clampSite', () => {
  it('returns a site already in range as it is, without copying it', () => {
    expect(clampSite(inRange, inputRanges)).toBe(inRange)
  })

  it('clamps out-of-range and infinite values into a copy, leaving the input untouched', () => {
    const site = { ...inRange, slopeDeg: 75, annualPrecipMm: -Infinity }
    const clamped = clampSite(site, inputRanges)
    expect(clamped).not.toBe(site)
    expect(clamped).toEqual({ ...inRange, slopeDeg: 60, annualPrecipMm: 250 })
    expect(site.slopeDeg).toBe(75)
  })

  it('turns −0 into the range minimum 0, as Math.max does', () => {
    const clamped = clampSite({ ...inRange, rockFractionPct: -0 }, inputRanges)
    expect(Object.is(clamped.rockFractionPct, 0)).toBe(true)
  })

  it('refuses NaN and non-numbers', () => {
    expect(() => clampSite({ ...inRange, soilDepthCm: Number.NaN }, inputRanges)).toThrow(/soilDepthCm/)
    expect(() => clampSite({ ...inRange, slopeDeg: '12' as unknown as number }, inputRanges)).toThrow(
      /slopeDeg/,
    )
  })
})
