import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { apiErrorOf } from '../../test/support/api-errors.ts'
import {
  FAKE_DATA_VERSION,
  FakeSiteLookup,
  FOREST_POINTS,
  failingSiteLookup,
  forestSite,
  NO_DATA_POINT,
  OUTSIDE_POINTS,
  TIERS,
} from '../../test/support/fakes.ts'
import { model, species } from '../../test/support/survival-model.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { HORIZONS, type Horizon } from '../types.ts'
import { StoreUnavailableError } from './errors.ts'
import { PredictionService } from './prediction-service.ts'
import type { PredictionRequest } from './prediction-types.ts'
import { SPECIES } from './species.ts'

const NOW = new Date('2026-11-22T12:00:00Z')

const douglasFir = species('PSME')

function service(lookup = new FakeSiteLookup()) {
  return { predictions: new PredictionService(model, lookup, () => NOW), lookup }
}

const coastRange: PredictionRequest = {
  ...FOREST_POINTS.coastRange,
  speciesCode: 'PSME',
  plantingMethod: 'manual',
}

const horizonsOf = (predictions: readonly { horizonYears: Horizon }[]) =>
  predictions.map((p) => p.horizonYears)

describe('PredictionService.predict', () => {
  it('answers with the nearest site, the species, the model’s predictions and the service clock', async () => {
    const { predictions, lookup } = service()
    const prediction = await predictions.predict(coastRange)
    const site = forestSite(FOREST_POINTS.coastRange)

    expect(lookup.oneCalls).toEqual([coastRange])
    expect(prediction.site).toEqual({
      latitude: 44.6,
      longitude: -123.6,
      matchedLatitude: site.latitude,
      matchedLongitude: site.longitude,
      matchDistanceKm: 1.11,
      region: 'pnw',
      attributes: site,
      dataVersion: FAKE_DATA_VERSION,
    })
    expect(prediction.species).toBe(douglasFir)
    expect(prediction.plantingMethod).toBe('manual')
    expect(prediction.predictions).toEqual(model.predict(site, douglasFir, 'manual', [1, 3, 5]))
    expect(prediction.model).toEqual({
      version: model.version,
      codename: model.codename,
      series: model.series,
    })
    expect(prediction.generatedAt).toBe(NOW)
  })

  it('gives every horizon a survival probability strictly between 0 and 1', async () => {
    const { predictions } = service()
    const { predictions: horizons } = await predictions.predict({
      ...coastRange,
      plantingMethod: 'drone_seeded',
    })
    expect(horizonsOf(horizons)).toEqual([1, 3, 5])
    for (const h of horizons) {
      expect(h.survivalProbability).toBeGreaterThan(0)
      expect(h.survivalProbability).toBeLessThan(1)
    }
  })

  it('predicts all three horizons when none, or null, are asked for', async () => {
    const { predictions } = service()
    expect(
      horizonsOf((await predictions.predict({ ...coastRange, horizons: undefined })).predictions),
    ).toEqual([1, 3, 5])
    expect(horizonsOf((await predictions.predict({ ...coastRange, horizons: null })).predictions)).toEqual([
      1, 3, 5,
    ])
  })

  it('answers requested horizons once each, ascending, whatever their order and repeats', async () => {
    const { predictions } = service()
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...HORIZONS), { minLength: 1, maxLength: 10 }),
        async (asked) => {
          const { predictions: answered } = await predictions.predict({ ...coastRange, horizons: asked })
          expect(horizonsOf(answered)).toEqual(HORIZONS.filter((h) => asked.includes(h)))
        },
      ),
      { numRuns: 50 },
    )
  })

  it('refuses an unknown species with a "did you mean" for a near miss', async () => {
    const { predictions, lookup } = service()
    const error = await apiErrorOf(predictions.predict({ ...coastRange, speciesCode: 'PSMA' }))
    expect(error.code).toBe('invalid_species')
    expect(error.status).toBe(422)
    expect(error.message).toBe('Species code "PSMA" is not recognized. Did you mean PSME (Douglas-fir)?')
    expect(error.details).toEqual({
      suggestion: 'GET /v1/species lists the recognized species codes',
      closest_code: 'PSME',
    })
    expect(lookup.calls).toBe(0)
  })

  it('suggests by common name too, and nothing when no species is close', async () => {
    const { predictions } = service()
    const byName = await apiErrorOf(predictions.predict({ ...coastRange, speciesCode: 'red aldr' }))
    expect(byName.details).toMatchObject({ closest_code: 'ALRU' })

    const farOff = await apiErrorOf(predictions.predict({ ...coastRange, speciesCode: 'ZZZZZZZZ' }))
    expect(farOff.code).toBe('invalid_species')
    expect(farOff.message).toBe('Species code "ZZZZZZZZ" is not recognized.')
    expect(farOff.details).not.toHaveProperty('closest_code')
  })

  it('refuses an unknown planting method, naming the ones there are', async () => {
    const { predictions, lookup } = service()
    const error = await apiErrorOf(predictions.predict({ ...coastRange, plantingMethod: 'helicopter' }))
    expect(error.code).toBe('invalid_method')
    expect(error.status).toBe(422)
    expect(error.message).toBe(
      'Planting method "helicopter" is not available; use one of: manual, drone_seeded',
    )
    expect(lookup.calls).toBe(0)
  })

  it('refuses a point outside Oregon and Washington before looking for a site', async () => {
    const { predictions, lookup } = service()
    for (const point of Object.values(OUTSIDE_POINTS)) {
      const error = await apiErrorOf(predictions.predict({ ...coastRange, ...point }))
      expect(error.code).toBe('outside_coverage')
      expect(error.status).toBe(422)
      expect(error.details).toEqual({ suggestion: 'GET /v1/coverage returns the covered area as GeoJSON' })
    }
    expect(lookup.calls).toBe(0)
  })

  it('says no_nearby_data when no site lies within the radius', async () => {
    const { predictions, lookup } = service()
    const error = await apiErrorOf(predictions.predict({ ...coastRange, ...NO_DATA_POINT }))
    expect(error.code).toBe('no_nearby_data')
    expect(error.status).toBe(422)
    expect(lookup.oneCalls).toEqual([{ ...coastRange, ...NO_DATA_POINT }])
  })

  it('checks species, then method, then coverage: the first broken rule is the one reported', async () => {
    const { predictions } = service()
    const everythingWrong = { ...OUTSIDE_POINTS.boise, speciesCode: 'NOPE', plantingMethod: 'catapult' }
    expect((await apiErrorOf(predictions.predict(everythingWrong))).code).toBe('invalid_species')
    expect((await apiErrorOf(predictions.predict({ ...everythingWrong, speciesCode: 'PSME' }))).code).toBe(
      'invalid_method',
    )
    expect(
      (
        await apiErrorOf(
          predictions.predict({ ...everythingWrong, speciesCode: 'PSME', plantingMethod: 'manual' }),
        )
      ).code,
    ).toBe('outside_coverage')
  })

  it('lets a store failure through untouched, for the adapters to report as 503', async () => {
    const away = new StoreUnavailableError(new Error('ECONNREFUSED'))
    const predictions = new PredictionService(model, failingSiteLookup(away), () => NOW)
    await expect(predictions.predict(coastRange)).rejects.toBe(away)
  })
})

describe('PredictionService.compare', () => {
  it('predicts both methods at one site and reports manual − drone for each horizon', async () => {
    const { predictions, lookup } = service()
    const comparison = await predictions.compare({ ...FOREST_POINTS.westCascades, speciesCode: 'PSME' })
    const site = forestSite(FOREST_POINTS.westCascades)

    expect(lookup.oneCalls).toHaveLength(1)
    expect(comparison.site.attributes).toEqual(site)
    expect(comparison.manual).toEqual(model.predict(site, douglasFir, 'manual'))
    expect(comparison.droneSeeded).toEqual(model.predict(site, douglasFir, 'drone_seeded'))
    expect(comparison.methodDifferential).toEqual(
      comparison.manual.map((m, i) => {
        const drone = comparison.droneSeeded[i]?.survivalProbability as number
        return {
          horizonYears: m.horizonYears,
          manual: m.survivalProbability,
          droneSeeded: drone,
          difference: m.survivalProbability - drone,
        }
      }),
    )
    expect(comparison.generatedAt).toBe(NOW)
  })

  it('honours the requested horizons in both methods and the differential', async () => {
    const { predictions } = service()
    const comparison = await predictions.compare({ ...coastRange, horizons: [5, 3, 5] })
    expect(horizonsOf(comparison.manual)).toEqual([3, 5])
    expect(horizonsOf(comparison.droneSeeded)).toEqual([3, 5])
    expect(horizonsOf(comparison.methodDifferential)).toEqual([3, 5])
  })

  it('reports unknown species, outside coverage and no nearby data like predict', async () => {
    const { predictions } = service()
    expect((await apiErrorOf(predictions.compare({ ...coastRange, speciesCode: 'PSMA' }))).code).toBe(
      'invalid_species',
    )
    expect((await apiErrorOf(predictions.compare({ ...coastRange, ...OUTSIDE_POINTS.boise }))).code).toBe(
      'outside_coverage',
    )
    expect((await apiErrorOf(predictions.compare({ ...coastRange, ...NO_DATA_POINT }))).code).toBe(
      'no_nearby_data',
    )
  })
})

describe('PredictionService.batch', () => {
  const good = (point: { latitude: number; longitude: number }, speciesCode = 'PSME'): PredictionRequest => ({
    ...point,
    speciesCode,
    plantingMethod: 'manual',
  })

  it('answers every item in request order, each with its own prediction or error', async () => {
    const { predictions } = service()
    const ponderosa: PredictionRequest = {
      ...good(FOREST_POINTS.eastCascades, 'PIPO'),
      plantingMethod: 'drone_seeded',
      horizons: [5],
    }
    const requests: PredictionRequest[] = [
      coastRange,
      { ...good(FOREST_POINTS.coastRange), speciesCode: 'PSMA' },
      good(OUTSIDE_POINTS.openPacific),
      good(NO_DATA_POINT),
      ponderosa,
      { ...good(FOREST_POINTS.westCascades), plantingMethod: 'by hand' },
    ]
    const results = [...(await predictions.batch(requests, TIERS.spore))]

    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5])
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual([
      'ok',
      'invalid_species',
      'outside_coverage',
      'no_nearby_data',
      'ok',
      'invalid_method',
    ])
    // An item's prediction is exactly what predict answers for it alone.
    expect(results[0]).toEqual({ index: 0, ok: true, prediction: await predictions.predict(coastRange) })
    expect(results[4]).toEqual({ index: 4, ok: true, prediction: await predictions.predict(ponderosa) })
  })

  it('looks up the nearest sites once for the whole batch, for the items that passed their checks', async () => {
    const { predictions, lookup } = service()
    const requests = [
      good(FOREST_POINTS.coastRange),
      good(OUTSIDE_POINTS.boise),
      good(FOREST_POINTS.westCascades, 'XXXX'),
      good(NO_DATA_POINT),
      good(FOREST_POINTS.eastCascades),
    ]
    await predictions.batch(requests, TIERS.spore)

    expect(lookup.oneCalls).toEqual([])
    expect(lookup.manyCalls).toEqual([[requests[0], requests[3], requests[4]]])
  })

  it('does not look anything up when no item passed its checks', async () => {
    const { predictions, lookup } = service()
    const results = [
      ...(await predictions.batch(
        [good(OUTSIDE_POINTS.boise), good(FOREST_POINTS.coastRange, 'X')],
        TIERS.spore,
      )),
    ]
    expect(results.map((r) => r.ok)).toEqual([false, false])
    expect(lookup.calls).toBe(0)
  })

  it('yields results lazily: the model runs only as each result is taken', async () => {
    const spied = loadSurvivalModel(SPECIES)
    const predict = vi.spyOn(spied, 'predict')
    const predictions = new PredictionService(spied, new FakeSiteLookup(), () => NOW)
    const results = await predictions.batch(
      [good(FOREST_POINTS.coastRange), good(FOREST_POINTS.westCascades), good(FOREST_POINTS.eastCascades)],
      TIERS.spore,
    )
    expect(predict).not.toHaveBeenCalled()

    const iterator = results[Symbol.iterator]()
    expect(iterator.next().value).toMatchObject({ index: 0, ok: true })
    expect(predict).toHaveBeenCalledTimes(1)
    iterator.next()
    iterator.next()
    expect(predict).toHaveBeenCalledTimes(3)
    expect(iterator.next().done).toBe(true)
  })

  it('stamps every item with the one time the batch was asked', async () => {
    let tick = 0
    const clock = () => new Date(NOW.getTime() + 1000 * tick++)
    const predictions = new PredictionService(model, new FakeSiteLookup(), clock)
    const results = [
      ...(await predictions.batch(
        [good(FOREST_POINTS.coastRange), good(FOREST_POINTS.eastCascades)],
        TIERS.spore,
      )),
    ]
    const stamps = results.map((r) => (r.ok ? r.prediction.generatedAt.toISOString() : r.error.code))
    expect(stamps).toEqual([NOW.toISOString(), NOW.toISOString()])
  })

  it('refuses more items than the tier’s batch size, before any lookup', async () => {
    const { predictions, lookup } = service()
    const eleven = Array.from({ length: 11 }, () => good(FOREST_POINTS.coastRange))
    const error = await apiErrorOf(predictions.batch(eleven, TIERS.spore))
    expect(error.code).toBe('batch_too_large')
    expect(error.status).toBe(422)
    expect(error.message).toBe('This batch has 11 sites; the spore tier allows up to 10 per call')
    expect(error.details).toEqual({ submitted: 11, tier_limit: 10, tier: 'spore' })
    expect(lookup.calls).toBe(0)

    const results = [...(await predictions.batch(eleven.slice(1), TIERS.spore))]
    expect(results).toHaveLength(10)
    expect(results.every((r) => r.ok)).toBe(true)
  })

  it('treats an empty batch as a caller bug (the input rules never let one through)', async () => {
    const { predictions } = service()
    await expect(predictions.batch([], TIERS.hypha)).rejects.toBeInstanceOf(RangeError)
  })

  it('for any mix of items: one result per item, in order, each failing only for its own reason', async () => {
    type Kind = 'ok' | 'invalid_species' | 'invalid_method' | 'outside_coverage' | 'no_nearby_data'
    const item: Record<Kind, PredictionRequest> = {
      ok: good(FOREST_POINTS.westCascades),
      invalid_species: good(FOREST_POINTS.westCascades, 'PSMX'),
      invalid_method: { ...good(FOREST_POINTS.westCascades), plantingMethod: 'MANUAL' },
      outside_coverage: good(OUTSIDE_POINTS.boise),
      no_nearby_data: good(NO_DATA_POINT),
    }
    const kinds = Object.keys(item) as Kind[]
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 10 }), async (mix) => {
        const { predictions, lookup } = service()
        const results = [
          ...(await predictions.batch(
            mix.map((kind) => item[kind]),
            TIERS.spore,
          )),
        ]

        expect(results.map((r) => r.index)).toEqual(mix.map((_, index) => index))
        expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(mix)
        const located = mix.filter((kind) => kind === 'ok' || kind === 'no_nearby_data')
        expect(lookup.manyCalls).toHaveLength(located.length > 0 ? 1 : 0)
        expect(lookup.manyCalls[0] ?? []).toHaveLength(located.length)
      }),
      { numRuns: 60 },
    )
  })
})
