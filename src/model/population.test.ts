import { beforeAll, describe, expect, it } from 'vitest'
import { isInNiche, isNative, TEST_POPULATION } from '../../test/support/model/population.ts'
import { mean, quartileEffect, spearman } from '../../test/support/model/stats.ts'
import { SPECIES } from '../domain/species.ts'
import { HORIZONS, type SiteAttributes, type Species } from '../types.ts'
import { loadSurvivalModel } from './loader.ts'

interface PairedPrediction {
  site: SiteAttributes
  species: Species
  manual: number[]
  drone: number[]
}

const model = loadSurvivalModel(SPECIES)
let native: PairedPrediction[] = []

beforeAll(() => {
  native = TEST_POPULATION.flatMap((site) =>
    SPECIES.filter((species) => isNative(site, species)).map((species) => ({
      site,
      species,
      manual: model.predict(site, species, 'manual').map((p) => p.survivalProbability),
      drone: model.predict(site, species, 'drone_seeded').map((p) => p.survivalProbability),
    })),
  )
})

const at = (values: number[], horizonIndex: number): number => values[horizonIndex] ?? Number.NaN

describe('population: method behaviour', () => {
  it('manual planting is at least as good as drone seeding on ≥ 95 % of native site × species pairs', () => {
    for (const h of HORIZONS.keys()) {
      const manualWins = native.filter((pair) => at(pair.manual, h) >= at(pair.drone, h)).length
      expect(manualWins / native.length).toBeGreaterThanOrEqual(0.95)
    }
  })

  it.each([
    ['slopeDeg', 1],
    ['rockFractionPct', 1],
    ['vegetationCoverPct', 1],
    ['soilDepthCm', -1],
  ] as const)('the manual − drone gap moves with %s (sign %i) at every horizon', (attribute, sign) => {
    const driver = native.map((pair) => pair.site[attribute])
    for (const h of HORIZONS.keys()) {
      const gap = native.map((pair) => at(pair.manual, h) - at(pair.drone, h))
      expect(sign * spearman(driver, gap)).toBeGreaterThan(0.1)
      expect(sign * quartileEffect(driver, gap)).toBeGreaterThanOrEqual(0.025)
    }
  })

  it('the gap is clearly wider on steep slopes: top-quartile mean gap ≥ bottom-quartile + 0.05', () => {
    const slope = native.map((pair) => pair.site.slopeDeg)
    for (const h of HORIZONS.keys()) {
      const gap = native.map((pair) => at(pair.manual, h) - at(pair.drone, h))
      expect(quartileEffect(slope, gap)).toBeGreaterThanOrEqual(0.05)
    }
  })
})

describe('population: calibration (facts §1 and §2 [interpretation])', () => {
  const bands = [
    [0.85, 0.95],
    [0.75, 0.9],
    [0.65, 0.85],
  ] as const

  it('hand-planted survival of in-niche species averages 85–95 % / 75–90 % / 65–85 % at 1 / 3 / 5 years', () => {
    const inNiche = native.filter((pair) => isInNiche(pair.site, pair.species))
    expect(inNiche.length).toBeGreaterThan(5000)
    bands.forEach(([low, high], h) => {
      const average = mean(inNiche.map((pair) => at(pair.manual, h)))
      expect(average).toBeGreaterThanOrEqual(low)
      expect(average).toBeLessThanOrEqual(high)
    })
  })

  it('the same bands hold for all native-zone plantings, in-niche or not', () => {
    bands.forEach(([low, high], h) => {
      const average = mean(native.map((pair) => at(pair.manual, h)))
      expect(average).toBeGreaterThanOrEqual(low)
      expect(average).toBeLessThanOrEqual(high)
    })
  })

  it('poor sites (worst decile) fall to roughly 30–60 % hand-planted survival by year 3–5', () => {
    const year5 = native.map((pair) => at(pair.manual, 2)).sort((a, b) => a - b)
    const worstDecile = mean(year5.slice(0, Math.floor(year5.length / 10)))
    expect(worstDecile).toBeGreaterThan(0.15)
    expect(worstDecile).toBeLessThan(0.6)
  })

  it('drone seeding (stocking per seed pod) is markedly lower: mean ≤ manual − 0.3 and roughly a third after 1–3 years', () => {
    HORIZONS.forEach((_, h) => {
      const manual = mean(native.map((pair) => at(pair.manual, h)))
      const drone = mean(native.map((pair) => at(pair.drone, h)))
      expect(drone).toBeLessThanOrEqual(manual - 0.3)
      expect(drone).toBeGreaterThan(0.1)
    })
    const droneYear3 = mean(native.map((pair) => at(pair.drone, 1)))
    expect(droneYear3).toBeGreaterThan(0.2)
    expect(droneYear3).toBeLessThan(0.45)
  })

  it('drone seeding stays mid-range on good sites rather than pinned near zero', () => {
    const year1 = native.map((pair) => at(pair.drone, 0)).sort((a, b) => a - b)
    const bestDecile = mean(year1.slice(-Math.floor(year1.length / 10)))
    expect(bestDecile).toBeGreaterThan(0.5)
    expect(bestDecile).toBeLessThan(0.85)
  })
})
