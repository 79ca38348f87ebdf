import fc from 'fast-check'
import { SPECIES } from '../../../src/domain/species.ts'
import { FOREST_ZONES, PLANTING_METHODS, type SiteAttributes } from '../../../src/types.ts'

const anyFinite = fc.double({ noNaN: true, noDefaultInfinity: true })

/** Mostly plausible values, sometimes any finite double (the model must clamp). */
const attribute = (min: number, max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.double({ min, max, noNaN: true }) },
    { weight: 1, arbitrary: anyFinite },
  )

export const siteArbitrary: fc.Arbitrary<SiteAttributes> = fc.record({
  zone: fc.constantFrom(...FOREST_ZONES),
  elevationM: attribute(0, 2900),
  slopeDeg: attribute(0, 50),
  aspectDeg: attribute(0, 360),
  heatLoadIndex: attribute(0, 1),
  soilDepthCm: attribute(15, 200),
  rockFractionPct: attribute(0, 80),
  vegetationCoverPct: attribute(5, 100),
  annualPrecipMm: attribute(250, 5000),
  summerWaterDeficitMm: attribute(0, 600),
  growingSeasonFrostDays: attribute(0, 45),
  browsePressureIndex: attribute(0, 1),
})

export const speciesArbitrary = fc.constantFrom(...SPECIES)
export const methodArbitrary = fc.constantFrom(...PLANTING_METHODS)
