import { describe, expect, it } from 'vitest'
import { apiErrorOf } from '../../../test/support/api-errors.ts'
import { forestSite } from '../../../test/support/fakes.ts'
import { polygon, rectangle } from '../../../test/support/geometry.ts'
import { DRAWS, simulate } from '../../../test/support/stand-simulation.ts'
import { planner, pointPlan } from '../../../test/support/stocking-setup.ts'
import { model, species } from '../../../test/support/survival-model.ts'
import type { HorizonPrediction, TreatmentEffect } from '../../types.ts'
import { TREATMENTS } from '../treatments.ts'
import { survivalDistribution, survivorsInterval } from './stocking-math.ts'
import type { StockingPlanRequest } from './stocking-types.ts'

/** A hot, dry, brushy, browsed Coast Range site: every treatment has something to act on. */
const HOT_SITE = forestSite(
  { latitude: 44.6, longitude: -123.6 },
  {
    zone: 'coast',
    heatLoadIndex: 0.9,
    summerWaterDeficitMm: 380,
    vegetationCoverPct: 80,
    browsePressureIndex: 0.8,
  },
)

/** Eight sites of a stand, from moderate to heavy browse, brush, heat and drought. */
const STAND_SITES = Array.from({ length: 8 }, (_, i) =>
  forestSite(
    { latitude: 44.51 + i * 0.01, longitude: -123.69 + (i % 3) * 0.02 },
    {
      id: 100 + i,
      zone: 'coast',
      browsePressureIndex: 0.5 + i * 0.07,
      vegetationCoverPct: 60 + i * 5,
      heatLoadIndex: 0.6 + (i % 4) * 0.13,
      summerWaterDeficitMm: 250 + i * 25,
    },
  ),
)
const STAND = polygon(rectangle(-123.7, 44.5, -123.6, 44.6))

const ruleHorizon = <T extends { horizonYears: number }>(list: readonly T[], years: number) =>
  list.find((h) => h.horizonYears === years) as T

describe('stocking plans with treatments', () => {
  it('keep the survival of an unsure effect (a stock type) and widen the interval', async () => {
    const { plans } = planner({ site: HOT_SITE })
    const plain = await plans.plan(pointPlan)
    const treated = await plans.plan({ ...pointPlan, treatments: { stockType: 'container' } })
    expect(plain.treatments).toBeUndefined()
    expect(treated.treatments?.effects.map((e) => e.value)).toEqual(['container'])
    treated.horizons.forEach((h, i) => {
      const before = plain.horizons[i] as (typeof plain.horizons)[number]
      expect(h.survivalProbability).toBe(before.survivalProbability)
      expect(h.lower).toBeLessThanOrEqual(before.lower)
      expect(h.upper).toBeGreaterThanOrEqual(before.upper)
    })
    const at = (p: typeof plain) => ruleHorizon(p.horizons, p.rule.horizonYears)
    expect(at(treated).upper - at(treated).lower).toBeGreaterThan(at(plain).upper - at(plain).lower)
    expect(treated.ninetyPercentHalfWidthShare as number).toBeGreaterThan(
      plain.ninetyPercentHalfWidthShare as number,
    )
    expect(treated.notes.join(' ')).toMatch(/Treatments: stock_type container \(synthesis\)/)
    expect(plain.notes.join(' ')).not.toMatch(/Treatments/)
  })

  it('need fewer trees with tubes and vegetation control where browse and brush weigh', async () => {
    const { plans } = planner({ site: HOT_SITE })
    const plain = await plans.plan(pointPlan)
    const treated = await plans.plan({
      ...pointPlan,
      treatments: { vegetationControl: 'site_prep_release_1yr', animalProtection: 'mesh_tubes' },
    })
    treated.horizons.forEach((h, i) => {
      const before = plain.horizons[i] as (typeof plain.horizons)[number]
      expect(h.survivalProbability).toBeGreaterThan(before.survivalProbability)
    })
    expect(treated.meetsStandard.probability).toBeGreaterThan(plain.meetsStandard.probability)
    expect(treated.required.treesPerAcre as number).toBeLessThan(plain.required.treesPerAcre as number)
  })

  it('refuse a treatment drone seeding cannot take, after the climate and before the density', async () => {
    const { plans, lookup } = planner({ site: HOT_SITE })
    const error = await apiErrorOf(
      plans.plan({
        ...pointPlan,
        plantingMethod: 'drone_seeded',
        treatments: { shade: 'shade_cards' },
        treesPerAcre: null,
      }),
    )
    expect(error.code).toBe('invalid_treatment')
    expect(error.details).toEqual({
      treatment: 'shade',
      value: 'shade_cards',
      planting_method: 'drone_seeded',
    })
    expect(lookup.calls).toBe(0)
  })

  it('compose with a future climate', async () => {
    const { plans } = planner({ site: HOT_SITE })
    const climate = { period: '2071-2100', scenario: 'ssp585' }
    const future = await plans.plan({ ...pointPlan, climate })
    const treated = await plans.plan({
      ...pointPlan,
      climate,
      treatments: { animalProtection: 'mesh_tubes' },
    })
    expect(treated.climate?.period).toBe('2071-2100')
    expect(ruleHorizon(treated.horizons, 5).survivalProbability).toBeGreaterThan(
      ruleHorizon(future.horizons, 5).survivalProbability,
    )
  })

  // The plan states the treatments' uncertainty as one normal shift of every site's logit, its SD the
  // mean over the sites; the truth simulated here draws each treatment's share of the penalty from its
  // stated normal, once per planting, and lets the model work out every site with it.
  it('holds its confidence, and its probability of meeting the standard, in a simulation of the treated stand', async () => {
    const treatments = {
      vegetationControl: 'release_2yr',
      animalProtection: 'mesh_tubes',
      shade: 'shade_cards',
      stockType: 'bareroot',
    }
    const request: StockingPlanRequest = {
      stand: STAND,
      plantingMethod: 'manual',
      speciesMix: [{ speciesCode: 'PSME', share: 1 }],
      treesPerAcre: 290,
      confidence: 0.8,
      treatments,
    }
    const { plans } = planner({ sites: STAND_SITES })
    const plan = await plans.plan(request)
    const years = plan.rule.horizonYears
    const target = plan.rule.targetTreesPerAcre
    const effects = TREATMENTS.resolve(treatments, 'manual')?.modelEffects as readonly TreatmentEffect[]
    const psme = species('PSME')

    const draws = (uncertain: boolean) => {
      const totals = new Int32Array(DRAWS)
      let seed = 1
      const normal = () => {
        // Box–Muller on a small LCG of its own: independent of the simulation's draws.
        seed = (seed * 1103515245 + 12345) % 2147483648
        const u = (seed + 1) / 2147483649
        seed = (seed * 1103515245 + 12345) % 2147483648
        const v = (seed + 1) / 2147483649
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
      }
      for (let d = 0; d < DRAWS; d++) {
        const drawn = effects.map((e) => ({
          ...e,
          reduction: Math.min(1, e.reduction + (uncertain ? e.reductionSd * normal() : 0)),
          reductionSd: 0,
        }))
        const logOddsBySite = STAND_SITES.map(
          (site) => (model.predict(site, psme, 'manual', [years], drawn)[0] as HorizonPrediction).logOdds,
        )
        const { total } = simulate(
          [{ share: 1, countsInFull: true, logOddsBySite }],
          plan.planted.treesPerAcre,
          {
            draws: 1,
            seed: d + 1,
            terms: model.uncertainty,
          },
        )
        totals[d] = total[0] as number
      }
      return totals
    }
    const truth = draws(true)
    const at = ruleHorizon(plan.horizons, years)
    const inside = truth.filter((x) => x >= at.lower && x <= at.upper).length / DRAWS
    const meets = truth.filter((x) => x >= target).length / DRAWS
    expect(meets).toBeGreaterThan(0.2)
    expect(meets).toBeLessThan(0.95)
    expect(Math.abs(plan.meetsStandard.probability - meets)).toBeLessThan(0.03)
    expect(inside).toBeGreaterThan(plan.confidence - 0.03)
    expect(inside).toBeLessThan(plan.confidence + 0.05)

    // The effects' uncertainty matters here: without it, outcomes spread less than the plan says.
    const sure = draws(false)
    const spread = (xs: Int32Array) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length
      return Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length)
    }
    expect(spread(truth)).toBeGreaterThan(spread(sure) * 1.1)
    // …and an interval that left it out (the same treated logits, the model's own terms) holds too few.
    const logOddsBySite = STAND_SITES.map(
      (site) => (model.predict(site, psme, 'manual', [years], effects)[0] as HorizonPrediction).logOdds,
    )
    const narrow = survivorsInterval(
      survivalDistribution([{ share: 1, countsInFull: true, logOddsBySite }], model.uncertainty),
      plan.planted.treesPerAcre,
      plan.confidence,
    )
    expect(narrow.upper - narrow.lower).toBeLessThan(at.upper - at.lower)
    const heldByNarrow = truth.filter((x) => x >= narrow.lower && x <= narrow.upper).length / DRAWS
    expect(heldByNarrow).toBeLessThan(plan.confidence - 0.03)
  })
})
