import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS, TIERS } from '../../test/support/fakes.ts'
import { apiError, errorEnvelope } from '../domain/errors.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import type { BatchItemResult, Prediction } from '../domain/prediction-types.ts'
import { SPECIES } from '../domain/species.ts'
import { loadSurvivalModel } from '../model/index.ts'
import type { FactorContribution, Horizon, HorizonPrediction } from '../types.ts'
import { batchResultsJson, predictionText } from './prediction-writer.ts'
import { predictionJson } from './responses.ts'

const anyNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 0, 1e-7, 1e21, 123456789.123, Number.MIN_VALUE, Number.MAX_VALUE),
)
const anyText = fc.oneof(
  fc.string(),
  fc.constantFrom('é', '"quoted"', 'back\\slash', 'line\nbreak', '\u2028', '😀'),
)

const contribution: fc.Arbitrary<FactorContribution> = fc.record({
  key: anyText,
  factor: anyText,
  contribution: anyNumber,
  impact: fc.constantFrom('positive', 'negative'),
  magnitude: anyNumber,
})

/** A calibrated version's shift, or none (a base version's answer). */
const shift = fc.option(
  fc.record({
    offset: anyNumber,
    interval: fc.tuple(anyNumber, anyNumber),
    level: anyNumber,
    plots: fc.nat(),
    trees: fc.nat(),
  }),
  { nil: undefined },
)

const horizon: fc.Arbitrary<HorizonPrediction> = fc
  .record({
    horizonYears: fc.constantFrom<Horizon>(1, 3, 5),
    survivalProbability: anyNumber,
    baselineLogOdds: anyNumber,
    logOdds: anyNumber,
    contributions: fc.array(contribution, { maxLength: 6 }),
    calibration: shift,
  })
  .map((fields) => ({
    ...fields,
    topContributions: (count: number) => fields.contributions.slice(0, count),
    uncertainty: { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 },
  }))

const prediction: fc.Arbitrary<Prediction> = fc.record({
  site: fc.record({
    latitude: anyNumber,
    longitude: anyNumber,
    matchedLatitude: anyNumber,
    matchedLongitude: anyNumber,
    matchDistanceKm: anyNumber,
    region: anyText,
    attributes: fc.constant({} as Prediction['site']['attributes']),
    dataVersion: fc.option(anyText),
  }),
  species: fc
    .constantFrom(...SPECIES)
    .chain((species) =>
      fc.record({ code: anyText, commonName: anyText }).map((names) => ({ ...species, ...names })),
    ),
  plantingMethod: fc.constantFrom('manual', 'drone_seeded'),
  predictions: fc.array(horizon, { maxLength: 3 }),
  model: fc.record({ version: anyText, codename: anyText, series: anyText }),
  madeWith: fc.constant({} as Prediction['madeWith']),
  generatedAt: fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }),
})

describe('predictionText', () => {
  it('writes exactly the bytes JSON.stringify writes for the prediction object, for any prediction', () => {
    fc.assert(
      fc.property(prediction, (p) => {
        expect(predictionText(p)).toBe(JSON.stringify(predictionJson(p)))
      }),
      { numRuns: 500 },
    )
  })

  it('does so for real predictions of the model, one after another (shared model and timestamp texts)', async () => {
    const service = new PredictionService(loadSurvivalModel(SPECIES), new FakeSiteLookup())
    const climates = [
      undefined,
      { period: '2041-2070', scenario: 'ssp245' },
      { period: '2071-2100', scenario: 'ssp585' },
    ]
    for (const point of Object.values(FOREST_POINTS)) {
      for (const species of SPECIES.slice(0, 5)) {
        for (const climate of climates) {
          const p = await service.predict({
            ...point,
            speciesCode: species.code,
            plantingMethod: 'drone_seeded',
            climate,
          })
          expect(Boolean(p.climate)).toBe(Boolean(climate))
          expect(predictionText(p)).toBe(JSON.stringify(predictionJson(p)))
          // With treatments, after the climate: the same bytes again.
          const treated = await service.predict({
            ...point,
            speciesCode: species.code,
            plantingMethod: 'manual',
            climate,
            treatments: {
              vegetationControl: 'release_2yr',
              animalProtection: 'mesh_tubes',
              stockType: 'container',
            },
          })
          expect(treated.treatments).toBeDefined()
          expect(predictionText(treated)).toBe(JSON.stringify(predictionJson(treated)))
        }
      }
    }
  })
})

describe('batchResultsJson', () => {
  it('is the results array of predictions and item errors, in order', () => {
    fc.assert(
      fc.property(fc.array(prediction, { minLength: 1, maxLength: 5 }), (predictions) => {
        const items: BatchItemResult[] = predictions.map((p, index) =>
          index % 2
            ? { index, ok: false, error: apiError('no_nearby_data') }
            : { index, ok: true, prediction: p },
        )
        const expected = {
          results: items.map((item, index) =>
            item.ok
              ? { index, prediction: predictionJson(item.prediction) }
              : { index, error: { code: 'no_nearby_data', message: apiError('no_nearby_data').message } },
          ),
        }
        expect(batchResultsJson(items).text).toBe(JSON.stringify(expected))
      }),
    )
  })
})

describe('batchResultsJson of real batches', () => {
  it('writes a whole batch of the model, across many buffers, as JSON.stringify would, in order', async () => {
    const service = new PredictionService(loadSurvivalModel(SPECIES), new FakeSiteLookup())
    const points = Object.values(FOREST_POINTS)
    const climates = [undefined, { period: '2041-2070', scenario: 'ssp245' }, null]
    const requests = Array.from({ length: 400 }, (_, i) => ({
      ...(points[i % points.length] as (typeof points)[number]),
      speciesCode: i % 97 === 5 ? 'NOPE' : (SPECIES[(i * 7) % SPECIES.length]?.code ?? 'PSME'),
      plantingMethod: i % 2 ? 'drone_seeded' : 'manual',
      horizons: i % 3 ? undefined : ([5, 1] as Horizon[]),
      climate: climates[i % climates.length],
      // Some treated; tubes with drone seeding fail their item (invalid_treatment).
      treatments:
        i % 4 === 1
          ? { vegetationControl: 'site_prep' }
          : i % 4 === 2
            ? { animalProtection: 'mesh_tubes' }
            : undefined,
    }))
    const items = [...(await service.batch(requests, TIERS.hypha))]
    expect(items.some((item) => !item.ok)).toBe(true)
    const encoded = batchResultsJson(items)
    expect(encoded.chunks.length).toBeGreaterThan(2)
    const expected = {
      results: items.map((item) =>
        item.ok
          ? { index: item.index, prediction: predictionJson(item.prediction) }
          : { index: item.index, error: errorEnvelope(item.error).error },
      ),
    }
    expect(encoded.text).toBe(JSON.stringify(expected))
    expect(encoded.byteLength).toBe(Buffer.byteLength(encoded.text))
  })

  it('is an empty list for no items', () => {
    expect(batchResultsJson([]).text).toBe('{"results":[]}')
  })
})
