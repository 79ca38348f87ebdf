import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../../test/support/fakes.ts'
import {
  COAST_SITE,
  logOddsAt,
  NOW,
  planner,
  pointPlan,
  round,
} from '../../../test/support/stocking-setup.ts'
import { model } from '../../../test/support/survival-model.ts'
import { HORIZONS } from '../../types.ts'
import { CLIMATE_DATA_NOTE, CLIMATE_FUTURES } from '../climate.ts'
import { TREES_PER_HECTARE_PER_ACRE } from '../input-rules.ts'
import { PredictionService } from '../prediction-service.ts'
import { siteClassOf } from '../site-class.ts'
import { STOCKING_STANDARDS } from './standards.ts'
import { meetsProbability, requiredDensity, survivalDistribution } from './stocking-math.ts'
import type { PlanPointSite, StockingPlan, StockingPlanRequest } from './stocking-types.ts'

describe('StockingPlanService.plan at a point', () => {
  it('plans at an Oregon coast site: Oregon’s rule for its class, three horizons, the fifth year judged', async () => {
    const { plans, lookup } = planner()
    const plan = await plans.plan(pointPlan)

    expect(lookup.oneCalls).toHaveLength(1)
    expect(lookup.oneCalls[0]).toMatchObject(FOREST_POINTS.coastRange)
    expect(siteClassOf(COAST_SITE)).toBe('I-III')
    expect(plan.rule).toMatchObject({
      id: 'or_fpa',
      minimumTreesPerAcre: 200,
      targetTreesPerAcre: 200,
      customTarget: false,
      horizonYears: 5,
      siteClass: 'I-III',
      verify: false,
      hardwoodShareCap: 0.2,
    })
    expect(plan.location).toEqual<PlanPointSite>({
      kind: 'point',
      latitude: 44.6,
      longitude: -123.6,
      siteId: COAST_SITE.id,
      matchedLatitude: COAST_SITE.latitude,
      matchedLongitude: COAST_SITE.longitude,
      matchDistanceKm: 1.2,
      zone: 'coast',
      state: 'OR',
      siteClass: 'I-III',
    })
    expect(plan.planted).toEqual({ treesPerAcre: 300, treesPerHectare: 741.3 })
    expect(plan.confidence).toBe(0.9)
    expect(plan.plantingMethod).toBe('manual')
    expect(plan.climate).toBeNull()
    expect(plan.model).toEqual({ version: model.version, codename: model.codename, series: model.series })
    expect(plan.generatedAt).toBe(NOW)

    expect(plan.horizons.map((h) => h.horizonYears)).toEqual([1, 3, 5])
    for (const h of plan.horizons) {
      expect(h.expectedTreesPerAcre).toBe(round(300 * h.survivalProbability, 1))
      expect(h.lower).toBeLessThanOrEqual(h.expectedTreesPerAcre)
      expect(h.upper).toBeGreaterThanOrEqual(h.expectedTreesPerAcre)
      expect(h.upper).toBeLessThanOrEqual(300)
      expect(h.bySpecies).toHaveLength(1)
      expect(h.bySpecies[0]).toMatchObject({ share: 1, plantedTreesPerAcre: 300, countsInFull: true })
      expect(h.bySpecies[0]?.species.code).toBe('PSME')
    }
    const [one, three, five] = plan.horizons.map((h) => h.survivalProbability) as number[]
    expect(one).toBeGreaterThan(three as number)
    expect(three).toBeGreaterThan(five as number)

    expect(plan.meetsStandard.horizonYears).toBe(5)
    expect(plan.meetsStandard.probability).toBeGreaterThan(0)
    expect(plan.meetsStandard.probability).toBeLessThanOrEqual(1)
    expect(plan.meetsStandard.atConfidence).toBe(plan.meetsStandard.probability >= 0.9)

    const required = plan.required.treesPerAcre as number
    expect(Number.isInteger(required)).toBe(true)
    expect(required).toBeGreaterThan(200)
    expect(plan.required.treesPerHectare).toBe(Math.ceil(required * TREES_PER_HECTARE_PER_ACRE))
    expect(plan.required.overplantingFactor).toBe(round(required / 200, 3))

    expect(plan.notes[0]).toBe(STOCKING_STANDARDS.description)
    expect(plan.notes.some((n) => n.startsWith('Survival only'))).toBe(true)
    expect(plan.notes.some((n) => n.includes('Verra VM0047'))).toBe(true)
    expect(plan.notes.some((n) => n.includes('verify it'))).toBe(false)
  })

  it('works its numbers out with the stocking arithmetic over the model’s log-odds and uncertainty', async () => {
    const { plans } = planner()
    const plan = await plans.plan({ ...pointPlan, treesPerAcre: 260, confidence: 0.8 })
    const d = survivalDistribution(
      [{ share: 1, countsInFull: true, logOddsBySite: logOddsAt([COAST_SITE], 'PSME', 'manual', 5) }],
      model.uncertainty,
    )
    expect(plan.meetsStandard.probability).toBe(meetsProbability(d, 260, 200, 40))
    expect(plan.required.treesPerAcre).toBe(requiredDensity(d, 200, 40, 0.8))
    const five = plan.horizons[2]
    const ninety = plan.ninetyPercentHalfWidthShare as number
    expect(ninety).toBeGreaterThan(0)
    // At confidence 0.9 the fifth year's interval is the 90 % one the carbon figure is half of.
    const at90 = await plans.plan({ ...pointPlan, treesPerAcre: 260 })
    const h = at90.horizons[2] as (typeof at90.horizons)[number]
    expect(at90.ninetyPercentHalfWidthShare).toBe(round((h.upper - h.lower) / 2 / h.expectedTreesPerAcre, 4))
    expect(at90.ninetyPercentHalfWidthShare).toBe(ninety)
    expect(five?.survivalProbability).toBe(h.survivalProbability)
  })

  it.each([
    ['PSME', 'manual'],
    ['PSME', 'drone_seeded'],
    ['THPL', 'manual'],
    ['ALRU', 'drone_seeded'],
  ] as const)(
    'gives one species at a point exactly /v1/predict’s survival (%s, %s)',
    async (code, method) => {
      const { plans, lookup } = planner()
      const predictions = new PredictionService(model, lookup, () => NOW)
      const plan = await plans.plan({
        ...pointPlan,
        plantingMethod: method,
        speciesMix: [{ speciesCode: code, share: 1 }],
      })
      const prediction = await predictions.predict({
        ...FOREST_POINTS.coastRange,
        speciesCode: code,
        plantingMethod: method,
      })
      expect(plan.horizons).toHaveLength(prediction.predictions.length)
      plan.horizons.forEach((h, i) => {
        const predicted = prediction.predictions[i]
        expect(h.horizonYears).toBe(predicted?.horizonYears)
        expect(h.survivalProbability).toBe(predicted?.survivalProbability)
        expect(h.bySpecies[0]?.survivalProbability).toBe(predicted?.survivalProbability)
      })
    },
  )

  it('gives the same as /v1/predict under a future climate too', async () => {
    const { plans, lookup } = planner()
    const climate = { period: '2071-2100', scenario: 'ssp585' }
    const predictions = new PredictionService(model, lookup, () => NOW)
    const plan = await plans.plan({ ...pointPlan, climate })
    const prediction = await predictions.predict({
      ...FOREST_POINTS.coastRange,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
      climate,
    })
    expect(plan.horizons.map((h) => h.survivalProbability)).toEqual(
      prediction.predictions.map((p) => p.survivalProbability),
    )
  })

  it('asks more trees of drone seeding than of hand planting at the same site', async () => {
    const { plans } = planner()
    const manual = await plans.plan(pointPlan)
    const drone = await plans.plan({ ...pointPlan, plantingMethod: 'drone_seeded' })
    expect(drone.plantingMethod).toBe('drone_seeded')
    expect(drone.horizons[2]?.survivalProbability).toBeLessThan(
      manual.horizons[2]?.survivalProbability as number,
    )
    expect(manual.required.treesPerAcre).not.toBeNull()
    expect(drone.required.treesPerAcre ?? Number.POSITIVE_INFINITY).toBeGreaterThan(
      manual.required.treesPerAcre as number,
    )
    expect(drone.meetsStandard.probability).toBeLessThan(manual.meetsStandard.probability)
  })

  it('gives a higher probability of meeting the standard the more trees are planted', async () => {
    const { plans } = planner()
    const probabilities: number[] = []
    for (const treesPerAcre of [200, 215, 230, 250, 280])
      probabilities.push((await plans.plan({ ...pointPlan, treesPerAcre })).meetsStandard.probability)
    for (let i = 1; i < probabilities.length; i++)
      expect(probabilities[i]).toBeGreaterThan(probabilities[i - 1] as number)
    // …while the density it would take does not depend on what was planted.
    const required = new Set<number | null>()
    for (const treesPerAcre of [150, 300, 1000])
      required.add((await plans.plan({ ...pointPlan, treesPerAcre })).required.treesPerAcre)
    expect(required.size).toBe(1)
  })

  it('asks more trees for a higher confidence; 0.9 is the default', async () => {
    const { plans } = planner()
    const required: number[] = []
    for (const confidence of [0.5, 0.8, 0.9, 0.95, 0.99])
      required.push((await plans.plan({ ...pointPlan, confidence })).required.treesPerAcre as number)
    for (let i = 1; i < required.length; i++) expect(required[i]).toBeGreaterThan(required[i - 1] as number)
    const byDefault = await plans.plan({ ...pointPlan, confidence: null })
    expect(byDefault.confidence).toBe(0.9)
    expect(byDefault.required.treesPerAcre).toBe(required[2])
    // A wider confidence widens each horizon's interval.
    const narrow = await plans.plan({ ...pointPlan, confidence: 0.6 })
    const wide = await plans.plan({ ...pointPlan, confidence: 0.95 })
    for (const i of [0, 1, 2]) {
      expect(wide.horizons[i]?.lower).toBeLessThanOrEqual(narrow.horizons[i]?.lower as number)
      expect(wide.horizons[i]?.upper).toBeGreaterThanOrEqual(narrow.horizons[i]?.upper as number)
    }
  })

  it('takes the density per hectare as well', async () => {
    const { plans } = planner()
    const perHectare = await plans.plan({ ...pointPlan, treesPerAcre: null, treesPerHectare: 741.3 })
    const perAcre = await plans.plan(pointPlan)
    expect(perHectare.planted).toEqual({ treesPerAcre: 300, treesPerHectare: 741.3 })
    expect(perHectare.meetsStandard.probability).toBeCloseTo(perAcre.meetsStandard.probability, 9)
    expect(perHectare.required).toEqual(perAcre.required)
  })

  it('uses a custom target and flags it; the rule’s minimum and horizon stay', async () => {
    const { plans } = planner()
    const standard = await plans.plan(pointPlan)
    const custom = await plans.plan({ ...pointPlan, targetTreesPerAcre: 260 })
    expect(custom.rule).toMatchObject({
      minimumTreesPerAcre: 200,
      targetTreesPerAcre: 260,
      customTarget: true,
      horizonYears: 5,
    })
    expect(custom.meetsStandard.probability).toBeLessThan(standard.meetsStandard.probability)
    const required = custom.required.treesPerAcre as number
    expect(required).toBeGreaterThan(standard.required.treesPerAcre as number)
    expect(custom.required.overplantingFactor).toBe(round(required / 260, 3))
    const d = survivalDistribution(
      [{ share: 1, countsInFull: true, logOddsBySite: logOddsAt([COAST_SITE], 'PSME', 'manual', 5) }],
      model.uncertainty,
    )
    expect(custom.meetsStandard.probability).toBe(meetsProbability(d, 300, 260, 0.2 * 260))
  })

  it('projects the site into a future climate, which changes the numbers and adds the data’s caveat', async () => {
    const { plans } = planner()
    const today = await plans.plan(pointPlan)
    const future = await plans.plan({ ...pointPlan, climate: { period: '2071-2100', scenario: 'ssp585' } })
    expect(future.climate).toEqual({
      period: '2071-2100',
      scenario: 'ssp585',
      dataVersion: CLIMATE_FUTURES.dataVersion,
    })
    expect(future.horizons.map((h) => h.survivalProbability)).not.toEqual(
      today.horizons.map((h) => h.survivalProbability),
    )
    expect(future.meetsStandard.probability).not.toBe(today.meetsStandard.probability)
    expect(future.notes).toContain(CLIMATE_DATA_NOTE)
    expect(today.notes).not.toContain(CLIMATE_DATA_NOTE)
    // The baseline period alone is today's climate.
    const baseline = await plans.plan({ ...pointPlan, climate: { period: '1991_2020' } })
    expect(baseline.climate).toBeNull()
    expect(baseline.meetsStandard.probability).toBe(today.meetsStandard.probability)
  })

  it('scales shares within the tolerance to sum to exactly 1', async () => {
    const { plans } = planner()
    const plan = await plans.plan({
      ...pointPlan,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.3335 },
        { speciesCode: 'THPL', share: 0.3335 },
        { speciesCode: 'TSHE', share: 0.3335 },
      ],
    })
    const shares = plan.horizons[0]?.bySpecies.map((s) => s.share) as number[]
    for (const share of shares) expect(share).toBeCloseTo(1 / 3, 12)
  })

  it('is deterministic: the same request gives the same plan', async () => {
    const request: StockingPlanRequest = {
      ...pointPlan,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.6 },
        { speciesCode: 'THPL', share: 0.25 },
        { speciesCode: 'ALRU', share: 0.15 },
      ],
      confidence: 0.85,
      climate: { period: '2041-2070', scenario: 'ssp245' },
    }
    const first = await planner().plans.plan(request)
    const second = await planner().plans.plan(request)
    expect(second).toEqual(first)
  })
})

describe('StockingPlan shape', () => {
  it('answers every horizon the model has', async () => {
    const plan: StockingPlan = await planner().plans.plan(pointPlan)
    expect(plan.horizons.map((h) => h.horizonYears)).toEqual([...HORIZONS])
  })
})
