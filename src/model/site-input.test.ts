import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SPECIES } from '../domain/species.ts'
import { NUMERIC_SITE_ATTRIBUTES } from '../types.ts'
import { readArtifact } from './artifact.ts'
import { clampSiteInto, ModelSite, referenceSiteFor } from './site-input.ts'

const { inputRanges, referenceSite } = readArtifact()
const inRange = referenceSiteFor(referenceSite, SPECIES[0] as (typeof SPECIES)[number])

describe('clampSiteInto', () => {
  it('writes a site already in range into the model’s site as it is', () => {
    const into = new ModelSite()
    expect(clampSiteInto(inRange, inputRanges, into)).toBe(into)
    expect({ ...into }).toEqual(inRange)
  })

  it('clamps out-of-range and infinite values, leaving the input untouched', () => {
    const site = { ...inRange, slopeDeg: 75, annualPrecipMm: -Infinity }
    const clamped = clampSiteInto(site, inputRanges, new ModelSite())
    expect({ ...clamped }).toEqual({ ...inRange, slopeDeg: 60, annualPrecipMm: 250 })
    expect(site.slopeDeg).toBe(75)
  })

  it('clamps every numeric attribute into its range, whatever was written before', () => {
    const into = new ModelSite()
    fc.assert(
      fc.property(
        fc.constantFrom(...NUMERIC_SITE_ATTRIBUTES),
        fc.double({ noNaN: true }),
        fc.constantFrom(undefined, 'OR' as const, 'WA' as const),
        (attribute, value, state) => {
          const clamped = clampSiteInto({ ...inRange, state, [attribute]: value }, inputRanges, into)
          const [min, max] = inputRanges[attribute]
          expect(clamped[attribute]).toBe(Math.min(max, Math.max(min, value)))
          expect(clamped.state).toBe(state)
          for (const other of NUMERIC_SITE_ATTRIBUTES) {
            if (other !== attribute) expect(clamped[other]).toBe(inRange[other])
          }
        },
      ),
    )
  })

  it('turns −0 into the range minimum 0, as Math.max does', () => {
    const clamped = clampSiteInto({ ...inRange, rockFractionPct: -0 }, inputRanges, new ModelSite())
    expect(Object.is(clamped.rockFractionPct, 0)).toBe(true)
  })

  it('refuses NaN and non-numbers', () => {
    const into = new ModelSite()
    expect(() => clampSiteInto({ ...inRange, soilDepthCm: Number.NaN }, inputRanges, into)).toThrow(
      /soilDepthCm/,
    )
    expect(() =>
      clampSiteInto({ ...inRange, slopeDeg: '12' as unknown as number }, inputRanges, into),
    ).toThrow(/slopeDeg/)
  })
})
