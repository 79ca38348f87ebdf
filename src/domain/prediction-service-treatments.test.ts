import { describe, expect, it } from 'vitest'
import { apiErrorOf } from '../../test/support/api-errors.ts'
import { FakeSiteLookup, FOREST_POINTS, forestSite, OUTSIDE_POINTS, TIERS } from '../../test/support/fakes.ts'
import { model } from '../../test/support/survival-model.ts'
import type { HorizonPrediction } from '../types.ts'
import { PredictionService } from './prediction-service.ts'
import type { PredictionRequest } from './prediction-types.ts'

const NOW = new Date('2026-11-22T12:00:00Z')

/** A lookup whose sites are brushy, browsed and on a hot aspect: every treatment acts there. */
const lookup = new FakeSiteLookup((point) =>
  point.latitude === OUTSIDE_POINTS.boise.latitude
    ? null
    : {
        site: forestSite(point, { vegetationCoverPct: 80, browsePressureIndex: 0.7, heatLoadIndex: 0.85 }),
        distanceKm: 1.2,
        dataVersion: null,
      },
)
const predictions = new PredictionService(model, lookup, () => NOW)

const request: PredictionRequest = {
  ...FOREST_POINTS.coastRange,
  speciesCode: 'PSME',
  plantingMethod: 'manual',
}
const ALL = { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes', shade: 'shade_cards' }

const survival = (list: readonly HorizonPrediction[]) => list.map((h) => h.survivalProbability)

describe('PredictionService with treatments', () => {
  it('predicts the treated site: higher survival, the treatments and their statuses on the answer', async () => {
    const plain = await predictions.predict(request)
    const treated = await predictions.predict({ ...request, treatments: ALL })
    expect(plain.treatments).toBeUndefined()
    expect(treated.treatments?.effects.map((e) => [e.treatment, e.status])).toEqual([
      ['vegetation_control', 'synthesis'],
      ['animal_protection', 'synthesis'],
      ['shade', 'synthesis'],
    ])
    treated.predictions.forEach((h, i) => {
      expect(h.survivalProbability).toBeGreaterThan(plain.predictions[i]?.survivalProbability as number)
      expect(h.treatment?.untreatedSurvivalProbability).toBe(plain.predictions[i]?.survivalProbability)
    })
  })

  it('answers exactly the untreated prediction for {} or only none values', async () => {
    const plain = await predictions.predict(request)
    for (const treatments of [
      {},
      null,
      { vegetationControl: 'none', animalProtection: 'none', shade: 'none' },
    ]) {
      const same = await predictions.predict({ ...request, treatments })
      expect(same).toEqual(plain)
    }
  })

  it('widens the survival interval by the effects’ uncertainty (a stock type: the same survival)', async () => {
    const plain = await predictions.predict(request)
    const stock = await predictions.predict({ ...request, treatments: { stockType: 'bareroot' } })
    stock.predictions.forEach((h, i) => {
      const before = plain.predictions[i] as HorizonPrediction
      expect(h.survivalProbability).toBe(before.survivalProbability)
      const wide = predictions.survivalInterval(h, 0.9)
      const narrow = predictions.survivalInterval(before, 0.9)
      expect(wide.lower).toBeLessThan(narrow.lower)
      expect(wide.upper).toBeGreaterThan(narrow.upper)
    })
  })

  it('checks treatments after species, method and climate, and before coverage', async () => {
    const drone = {
      ...request,
      plantingMethod: 'drone_seeded',
      treatments: { animalProtection: 'mesh_tubes' },
    }
    expect((await apiErrorOf(predictions.predict({ ...drone, speciesCode: 'XXXX' }))).code).toBe(
      'invalid_species',
    )
    expect((await apiErrorOf(predictions.predict({ ...drone, climate: { period: '2099' } }))).code).toBe(
      'invalid_climate',
    )
    const calls = lookup.calls
    const error = await apiErrorOf(predictions.predict({ ...drone, ...OUTSIDE_POINTS.boise }))
    expect(error.code).toBe('invalid_treatment')
    expect(lookup.calls).toBe(calls)
  })

  it('compares both methods treated alike, and refuses a treatment only hand planting takes', async () => {
    const compareRequest = { ...FOREST_POINTS.coastRange, speciesCode: 'PSME' }
    const error = await apiErrorOf(predictions.compare({ ...compareRequest, treatments: ALL }))
    expect(error.code).toBe('invalid_treatment')
    expect(error.message).toMatch(/comparison predicts drone seeding too/)

    const plain = await predictions.compare(compareRequest)
    const treated = await predictions.compare({
      ...compareRequest,
      treatments: { vegetationControl: 'site_prep' },
    })
    expect(treated.treatments?.manual.effects[0]?.status).toBe('assumption')
    expect(treated.treatments?.droneSeeded.effects[0]?.status).toBe('assumption')
    treated.methodDifferential.forEach((d, i) => {
      expect(d.manual).toBe(treated.manual[i]?.survivalProbability)
      expect(d.manual).toBeGreaterThan(plain.methodDifferential[i]?.manual as number)
      expect(d.droneSeeded).toBeGreaterThan(plain.methodDifferential[i]?.droneSeeded as number)
    })
    expect(plain.treatments).toBeUndefined()
  })

  it('ranks every species treated, each with its untreated survival', async () => {
    const rankRequest = { ...FOREST_POINTS.coastRange, plantingMethod: 'manual', horizon: 5 as const }
    const plain = await predictions.rank(rankRequest)
    const treated = await predictions.rank({ ...rankRequest, treatments: { animalProtection: 'mesh_tubes' } })
    expect(treated.treatments?.effects[0]?.value).toBe('mesh_tubes')
    const before = new Map(plain.ranking.map((r) => [r.species.code, r.survivalProbability]))
    for (const entry of treated.ranking) {
      expect(entry.untreatedSurvivalProbability).toBe(before.get(entry.species.code))
      expect(entry.survivalProbability).toBeGreaterThan(entry.untreatedSurvivalProbability as number)
    }
    for (let i = 1; i < treated.ranking.length; i++)
      expect(treated.ranking[i]?.survivalProbability).toBeLessThanOrEqual(
        treated.ranking[i - 1]?.survivalProbability as number,
      )
    expect(plain.ranking.every((r) => r.untreatedSurvivalProbability === undefined)).toBe(true)
  })

  it('fails only the batch item whose treatment its method cannot take', async () => {
    const results = [
      ...(await predictions.batch(
        [
          { ...request, treatments: ALL },
          { ...request, plantingMethod: 'drone_seeded', treatments: { stockType: 'container' } },
          { ...request, plantingMethod: 'drone_seeded', treatments: { vegetationControl: 'release_2yr' } },
        ],
        TIERS.hypha,
      )),
    ]
    expect(results.map((r) => r.ok)).toEqual([true, false, true])
    const failed = results[1]
    expect(failed && !failed.ok && failed.error.code).toBe('invalid_treatment')
  })

  it('composes with a future climate: today’s side of the change is treated too', async () => {
    const climate = { period: '2071-2100', scenario: 'ssp585' }
    const future = await predictions.predict({ ...request, climate, treatments: ALL })
    const todayTreated = await predictions.predict({ ...request, treatments: ALL })
    const futureUntreated = await predictions.predict({ ...request, climate })
    expect(future.climate?.period).toBe('2071-2100')
    expect(
      survival(future.predictions).every((p, i) => p > (survival(futureUntreated.predictions)[i] as number)),
    ).toBe(true)
    const change = predictions.changeFromToday(future)
    change?.forEach((h, i) => {
      expect(h.todaySurvivalProbability).toBe(todayTreated.predictions[i]?.survivalProbability)
    })
  })
})
