import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  FakeSiteLookup,
  FOREST_POINTS,
  forestSite,
  NO_DATA_POINT,
  OUTSIDE_POINTS,
} from '../../test/support/fakes.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { isInNativeRange } from '../model/native-range.ts'
import {
  FOREST_ZONES,
  HORIZONS,
  type Horizon,
  type HorizonPrediction,
  PLANTING_METHODS,
  type Site,
  type SurvivalModel,
  US_STATES,
} from '../types.ts'
import { ApiError } from './errors.ts'
import { PredictionService } from './prediction-service.ts'
import type { RankingRequest } from './prediction-types.ts'
import { SPECIES } from './species.ts'
import { rankSpecies } from './species-ranking.ts'

const NOW = new Date('2026-11-22T12:00:00Z')
const model = loadSurvivalModel(SPECIES)
const site = forestSite(FOREST_POINTS.coastRange)

const request: RankingRequest = { ...FOREST_POINTS.coastRange, plantingMethod: 'manual', horizon: 5 }

/** A model answering fixed probabilities per species code (the real model's factors otherwise). */
function fixedModel(probabilities: Record<string, number>): SurvivalModel {
  return {
    ...model,
    predict: (s, species, method, horizons) =>
      model.predict(s, species, method, horizons).map(
        (p): HorizonPrediction => ({
          horizonYears: p.horizonYears,
          survivalProbability: probabilities[species.code] ?? 0.5,
          baselineLogOdds: p.baselineLogOdds,
          logOdds: p.logOdds,
          contributions: p.contributions,
          uncertainty: p.uncertainty,
          topContributions: (count) => p.topContributions(count),
        }),
      ),
  }
}

describe('rankSpecies', () => {
  it('lists every species once, by survival descending, ranks from 1', () => {
    const ranking = rankSpecies(model, site, 'manual', 3, SPECIES)
    expect(ranking).toHaveLength(20)
    expect(new Set(ranking.map((r) => r.species.code)).size).toBe(20)
    expect(ranking.map((r) => r.rank)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    for (let i = 1; i < ranking.length; i++) {
      expect(ranking[i - 1]?.survivalProbability).toBeGreaterThanOrEqual(ranking[i]?.survivalProbability ?? 1)
    }
  })

  it('gives each species the probability predict gives at that horizon', () => {
    for (const entry of rankSpecies(model, site, 'drone_seeded', 1, SPECIES)) {
      const [p] = model.predict(site, entry.species, 'drone_seeded', [1])
      expect(entry.survivalProbability).toBe(p?.survivalProbability)
    }
  })

  it('breaks ties by species code', () => {
    const ranking = rankSpecies(
      fixedModel({ PSME: 0.9, TSHE: 0.9, ABAM: 0.9, ALRU: 0.95 }),
      site,
      'manual',
      5,
      SPECIES,
    )
    expect(ranking.slice(0, 4).map((r) => r.species.code)).toEqual(['ALRU', 'ABAM', 'PSME', 'TSHE'])
    // The rest all at 0.5: alphabetical.
    const rest = ranking.slice(4).map((r) => r.species.code)
    expect(rest).toEqual([...rest].sort())
  })

  it('carries the largest contribution as topFactor (the first risk factor of predict)', () => {
    for (const horizon of HORIZONS) {
      for (const entry of rankSpecies(model, site, 'manual', horizon, SPECIES)) {
        const [p] = model.predict(site, entry.species, 'manual', [horizon])
        expect(entry.topFactor).toEqual(p?.contributions[0])
        const largest = Math.max(...(p?.contributions ?? []).map((c) => c.magnitude))
        expect(entry.topFactor.magnitude).toBe(largest)
      }
    }
  })

  it('any site, method and horizon: sorted, 20 distinct species, probabilities in [0, 1]', () => {
    const siteArb = fc.record({
      zone: fc.constantFrom(...FOREST_ZONES),
      elevationM: fc.integer({ min: 0, max: 3000 }),
      slopeDeg: fc.double({ min: 0, max: 60, noNaN: true }),
      aspectDeg: fc.double({ min: 0, max: 360, noNaN: true }),
      heatLoadIndex: fc.double({ min: 0, max: 1, noNaN: true }),
      soilDepthCm: fc.integer({ min: 5, max: 200 }),
      rockFractionPct: fc.double({ min: 0, max: 100, noNaN: true }),
      vegetationCoverPct: fc.double({ min: 0, max: 100, noNaN: true }),
      annualPrecipMm: fc.integer({ min: 150, max: 4500 }),
      summerWaterDeficitMm: fc.integer({ min: 0, max: 700 }),
      growingSeasonFrostDays: fc.integer({ min: 0, max: 60 }),
      browsePressureIndex: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    fc.assert(
      fc.property(
        siteArb,
        fc.constantFrom(...PLANTING_METHODS),
        fc.constantFrom(...HORIZONS),
        (attributes, method, horizon: Horizon) => {
          const ranking = rankSpecies(model, attributes, method, horizon, SPECIES)
          expect(new Set(ranking.map((r) => r.species.code)).size).toBe(20)
          ranking.forEach((entry, index) => {
            expect(entry.rank).toBe(index + 1)
            expect(entry.survivalProbability).toBeGreaterThanOrEqual(0)
            expect(entry.survivalProbability).toBeLessThanOrEqual(1)
            const next = ranking[index + 1]
            if (next) {
              const ordered =
                entry.survivalProbability > next.survivalProbability ||
                (entry.survivalProbability === next.survivalProbability &&
                  entry.species.code < next.species.code)
              expect(ordered).toBe(true)
            }
          })
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('isInNativeRange', () => {
  const bySpecies = (code: string) => {
    const found = SPECIES.find((s) => s.code === code)
    if (!found) throw new Error(`${code} missing`)
    return found
  }

  it('is whether the site’s zone is one of the species’ range zones and its state one of its states', () => {
    const douglasFir = bySpecies('PSME')
    expect(isInNativeRange(douglasFir, { zone: 'coast', state: 'WA' })).toBe(true)
    expect(isInNativeRange(douglasFir, { zone: 'subalpine', state: 'OR' })).toBe(false)
    // Incense-cedar's zones reach into Washington, where it does not grow.
    const incenseCedar = bySpecies('CADE')
    expect(incenseCedar.rangeStates).toEqual(['OR'])
    expect(isInNativeRange(incenseCedar, { zone: 'eastside_cascades', state: 'OR' })).toBe(true)
    expect(isInNativeRange(incenseCedar, { zone: 'eastside_cascades', state: 'WA' })).toBe(false)
    // A site whose state is not known is judged by its zone alone.
    expect(isInNativeRange(incenseCedar, { zone: 'eastside_cascades' })).toBe(true)
  })

  it('agrees with the model’s native_range factor for every species, zone and state', () => {
    for (const species of SPECIES) {
      for (const zone of FOREST_ZONES) {
        for (const state of US_STATES) {
          const at: Site = { ...site, zone, state }
          const [p] = model.predict(at, species, 'manual', [5])
          const factor = p?.contributions.find((c) => c.key === 'native_range')
          expect(factor, 'the model explains native_range').toBeDefined()
          // The reference site is in the native range: outside it the factor costs survival.
          expect(factor?.contribution === 0, `${species.code} in ${zone}, ${state}`).toBe(
            isInNativeRange(species, at),
          )
        }
      }
    }
  })
})

describe('PredictionService.rank', () => {
  function service(lookup = new FakeSiteLookup()) {
    return { predictions: new PredictionService(model, lookup, () => NOW), lookup }
  }

  it('one nearest-site lookup, then every species at the matched site', async () => {
    const { predictions, lookup } = service()
    const ranking = await predictions.rank(request)
    expect(lookup.oneCalls).toEqual([request])
    expect(lookup.manyCalls).toEqual([])
    expect(ranking.site.attributes).toEqual(site)
    expect(ranking.site.matchDistanceKm).toBe(1.11)
    expect(ranking.plantingMethod).toBe('manual')
    expect(ranking.horizonYears).toBe(5)
    expect(ranking.generatedAt).toEqual(NOW)
    expect(ranking.model).toEqual({ version: model.version, codename: model.codename, series: model.series })
    expect(ranking.ranking).toEqual(rankSpecies(model, site, 'manual', 5, SPECIES))
    for (const entry of ranking.ranking)
      expect(entry.nativeRange).toBe(entry.species.rangeZones.includes(site.zone))
  })

  it.each([
    ['invalid_method', { ...request, plantingMethod: 'helicopter' }, 0],
    ['outside_coverage', { ...request, ...OUTSIDE_POINTS.boise }, 0],
    ['no_nearby_data', { ...request, ...NO_DATA_POINT }, 1],
  ] as const)('raises %s like predict', async (code, bad, lookups) => {
    const { predictions, lookup } = service()
    const error = await predictions.rank(bad).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe(code)
    expect((error as ApiError).status).toBe(422)
    expect(lookup.calls).toBe(lookups)
  })

  it('checks the method before coverage, as predict does', async () => {
    const { predictions } = service()
    const error = await predictions
      .rank({ ...request, ...OUTSIDE_POINTS.boise, plantingMethod: 'x' })
      .catch((e) => e)
    expect((error as ApiError).code).toBe('invalid_method')
  })
})
