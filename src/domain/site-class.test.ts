import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forestSite } from '../../test/support/fakes.ts'
import { FOREST_ZONES, type Site } from '../types.ts'
import { modelledProductivity, SITE_CLASSES, type SiteClass, siteClassOf } from './site-class.ts'

/** Higher is more productive. */
const RANK: Record<SiteClass, number> = { VI: 0, 'IV-V': 1, 'I-III': 2 }

/** A site whose productivity is 80 + 0.5 · (soil depth − 60): no rain, deficit, frost or high elevation. */
const bare = (overrides: Partial<Site> = {}) =>
  forestSite(
    { latitude: 44.6, longitude: -123.6 },
    {
      annualPrecipMm: 0,
      summerWaterDeficitMm: 0,
      elevationM: 500,
      growingSeasonFrostDays: 0,
      ...overrides,
    },
  )

const siteArbitrary = fc
  .record({
    zone: fc.constantFrom(...FOREST_ZONES),
    annualPrecipMm: fc.double({ min: 150, max: 4500, noNaN: true }),
    summerWaterDeficitMm: fc.double({ min: 0, max: 800, noNaN: true }),
    soilDepthCm: fc.double({ min: 5, max: 250, noNaN: true }),
    elevationM: fc.double({ min: 0, max: 3200, noNaN: true }),
    growingSeasonFrostDays: fc.double({ min: 0, max: 90, noNaN: true }),
  })
  .map((attributes) => forestSite({ latitude: 45, longitude: -122 }, attributes))

const increase = fc.double({ min: 0, max: 2000, noNaN: true })

describe('siteClassOf', () => {
  it('places the thresholds at 120 (I–III) and 50 (IV–V) cubic feet, VI below', () => {
    expect(modelledProductivity(bare({ soilDepthCm: 140 }))).toBe(120)
    expect(siteClassOf(bare({ soilDepthCm: 140 }))).toBe('I-III')
    expect(siteClassOf(bare({ soilDepthCm: 139.99 }))).toBe('IV-V')
    expect(modelledProductivity(bare({ soilDepthCm: 0 }))).toBe(50)
    expect(siteClassOf(bare({ soilDepthCm: 0 }))).toBe('IV-V')
    expect(siteClassOf(bare({ soilDepthCm: 0, growingSeasonFrostDays: 0.0125 }))).toBe('VI')
    expect(siteClassOf(bare({ soilDepthCm: 100 }))).toBe('IV-V')
  })

  it('reads the class off the modelled productivity, for any site', () => {
    fc.assert(
      fc.property(siteArbitrary, (site) => {
        const productivity = modelledProductivity(site)
        const expected = productivity >= 120 ? 'I-III' : productivity >= 50 ? 'IV-V' : 'VI'
        expect(siteClassOf(site)).toBe(expected)
        expect(SITE_CLASSES).toContain(siteClassOf(site))
      }),
    )
  })

  it('classes the fakes’ westside forest site I–III, a dry, thin-soiled frosty site VI', () => {
    expect(siteClassOf(forestSite({ latitude: 44.6, longitude: -123.6 }))).toBe('I-III')
    expect(
      siteClassOf(
        forestSite(
          { latitude: 44, longitude: -121 },
          { annualPrecipMm: 350, summerWaterDeficitMm: 450, soilDepthCm: 30, growingSeasonFrostDays: 25 },
        ),
      ),
    ).toBe('VI')
  })

  it('is deterministic', () => {
    fc.assert(
      fc.property(siteArbitrary, (site) => {
        expect(siteClassOf({ ...site })).toBe(siteClassOf(site))
        expect(modelledProductivity({ ...site })).toBe(modelledProductivity(site))
      }),
    )
  })

  it('never lowers the class for more precipitation or deeper soil', () => {
    fc.assert(
      fc.property(siteArbitrary, increase, increase, (site, rain, soil) => {
        const before = RANK[siteClassOf(site)]
        expect(
          RANK[siteClassOf({ ...site, annualPrecipMm: site.annualPrecipMm + rain })],
        ).toBeGreaterThanOrEqual(before)
        expect(
          RANK[siteClassOf({ ...site, soilDepthCm: site.soilDepthCm + soil / 10 })],
        ).toBeGreaterThanOrEqual(before)
      }),
    )
  })

  it('never raises the class for more water deficit, more frost days or more elevation', () => {
    fc.assert(
      fc.property(siteArbitrary, increase, increase, increase, (site, deficit, frost, elevation) => {
        const before = RANK[siteClassOf(site)]
        const worse = [
          { ...site, summerWaterDeficitMm: site.summerWaterDeficitMm + deficit / 2 },
          { ...site, growingSeasonFrostDays: site.growingSeasonFrostDays + frost / 20 },
          { ...site, elevationM: site.elevationM + elevation },
        ]
        for (const s of worse) expect(RANK[siteClassOf(s)]).toBeLessThanOrEqual(before)
      }),
    )
  })

  it('depends on growing conditions only, not slope, aspect, cover, browse, zone or state', () => {
    fc.assert(
      fc.property(
        siteArbitrary,
        fc.record({
          slopeDeg: fc.double({ min: 0, max: 60, noNaN: true }),
          aspectDeg: fc.double({ min: 0, max: 360, noNaN: true }),
          vegetationCoverPct: fc.double({ min: 0, max: 100, noNaN: true }),
          browsePressureIndex: fc.double({ min: 0, max: 1, noNaN: true }),
          zone: fc.constantFrom(...FOREST_ZONES),
          state: fc.constantFrom('OR' as const, 'WA' as const),
        }),
        (site, other) => {
          expect(modelledProductivity({ ...site, ...other })).toBe(modelledProductivity(site))
        },
      ),
    )
  })
})
