import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { methodArbitrary, siteArbitrary, speciesArbitrary } from '../../test/support/model/arbitraries.ts'
import { SPECIES } from '../domain/species.ts'
import type { TreatmentsRequest } from '../domain/treatment-values.ts'
import { TREATMENTS } from '../domain/treatments.ts'
import { logit } from '../stats/logistic.ts'
import { survivalInterval } from '../stats/survival-interval.ts'
import {
  HORIZONS,
  type HorizonPrediction,
  type PlantingMethod,
  type SiteAttributes,
  type TreatmentEffect,
} from '../types.ts'
import { calibratedModel } from './calibrated-model.ts'
import { byMagnitudeThenKey } from './horizon-result.ts'
import { loadSurvivalModel } from './loader.ts'

const model = loadSurvivalModel(SPECIES)
const psme = SPECIES.find((s) => s.code === 'PSME') as (typeof SPECIES)[number]

/** A westside site where every treated factor weighs: heavy cover, browse, a hot dry aspect. */
const STRESSED: SiteAttributes = {
  zone: 'westside_cascades',
  state: 'OR',
  elevationM: 800,
  slopeDeg: 25,
  aspectDeg: 210,
  heatLoadIndex: 0.9,
  soilDepthCm: 80,
  rockFractionPct: 15,
  vegetationCoverPct: 85,
  annualPrecipMm: 1600,
  summerWaterDeficitMm: 380,
  growingSeasonFrostDays: 4,
  browsePressureIndex: 0.8,
}

/** Any combination of the four treatments a request can name (any of them may be left out). */
const requestArbitrary: fc.Arbitrary<TreatmentsRequest> = fc.record(
  {
    vegetationControl: fc.constantFrom(
      'none',
      'site_prep',
      'release_1yr',
      'release_2yr',
      'site_prep_release_1yr',
      'site_prep_release_2yr',
    ),
    animalProtection: fc.constantFrom('none', 'mesh_tubes'),
    stockType: fc.constantFrom('bareroot', 'container'),
    shade: fc.constantFrom('none', 'shade_cards'),
  },
  { requiredKeys: [] },
)

/** The model's effects of a request for a method; drone seeding keeps only vegetation control. */
function effectsOf(request: TreatmentsRequest, method: PlantingMethod): readonly TreatmentEffect[] {
  const asked = method === 'manual' ? request : { vegetationControl: request.vegetationControl }
  return TREATMENTS.resolve(asked, method)?.modelEffects ?? []
}

const effect = (factorKeys: string[], reduction: number, reductionSd = 0): TreatmentEffect[] => [
  { treatment: 'test', value: 'on', factorKeys, reduction, reductionSd },
]

const contributionOf = (h: HorizonPrediction, key: string) =>
  h.contributions.find((c) => c.key === key)?.contribution as number

describe('treatments in the model', () => {
  it('keep the explanations exact, and the probabilities inside (0, 1)', () => {
    fc.assert(
      fc.property(
        siteArbitrary,
        speciesArbitrary,
        methodArbitrary,
        requestArbitrary,
        (site, species, method, request) => {
          for (const h of model.predict(site, species, method, HORIZONS, effectsOf(request, method))) {
            const explained = h.contributions.reduce((sum, c) => sum + c.contribution, h.baselineLogOdds)
            expect(Math.abs(explained - h.logOdds)).toBeLessThan(1e-9)
            expect(Math.abs(logit(h.survivalProbability) - h.logOdds)).toBeLessThan(1e-9)
            expect(h.survivalProbability).toBeGreaterThan(0)
            expect(h.survivalProbability).toBeLessThan(1)
            expect(h.contributions).toHaveLength(model.factors.length)
          }
        },
      ),
      { numRuns: 1500 },
    )
  })

  it('rank the factors as a full sort would, and build the top ones alone to the same answer', () => {
    fc.assert(
      fc.property(
        siteArbitrary,
        speciesArbitrary,
        methodArbitrary,
        requestArbitrary,
        fc.integer({ min: 0, max: 12 }),
        (site, species, method, request, count) => {
          const effects = effectsOf(request, method)
          const [lazy, whole] = [0, 1].map(() => model.predict(site, species, method, HORIZONS, effects))
          for (const [i, h] of (whole as HorizonPrediction[]).entries()) {
            expect(h.contributions).toEqual([...h.contributions].sort(byMagnitudeThenKey))
            expect((lazy as HorizonPrediction[])[i]?.topContributions(count)).toEqual(
              h.contributions.slice(0, count),
            )
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('never lower survival, and show each treated factor beside its untreated contribution', () => {
    fc.assert(
      fc.property(
        siteArbitrary,
        speciesArbitrary,
        methodArbitrary,
        requestArbitrary,
        (site, species, method, request) => {
          const effects = effectsOf(request, method)
          const untreated = model.predict(site, species, method)
          model.predict(site, species, method, HORIZONS, effects).forEach((h, i) => {
            const before = untreated[i] as HorizonPrediction
            expect(h.survivalProbability).toBeGreaterThanOrEqual(before.survivalProbability)
            if (effects.length === 0) {
              expect(h.treatment).toBeUndefined()
              expect(h.logOdds).toBe(before.logOdds)
              return
            }
            const t = h.treatment
            if (!t) throw new Error('a treated horizon has no treatment block')
            expect(t.untreatedLogOdds).toBe(before.logOdds)
            expect(t.untreatedSurvivalProbability).toBe(before.survivalProbability)
            for (const factor of t.factors) {
              expect(factor.untreatedContribution).toBe(contributionOf(before, factor.key))
              expect(factor.contribution).toBeGreaterThanOrEqual(factor.untreatedContribution)
              expect(contributionOf(h, factor.key)).toBe(factor.contribution)
            }
            // Factors no treatment acts on keep their contribution exactly.
            const treatedKeys = new Set(t.factors.map((f) => f.key))
            for (const c of h.contributions)
              if (!treatedKeys.has(c.key)) expect(c.contribution).toBe(contributionOf(before, c.key))
          })
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('rise with the share of the penalty removed (monotone in the effect)', () => {
    fc.assert(
      fc.property(
        siteArbitrary,
        speciesArbitrary,
        methodArbitrary,
        fc.constantFrom('competing_vegetation', 'browse_predation', 'heat_load', 'summer_water_deficit'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (site, species, method, key, a, b) => {
          const [low, high] = a < b ? [a, b] : [b, a]
          const weaker = model.predict(site, species, method, HORIZONS, effect([key], low))
          const stronger = model.predict(site, species, method, HORIZONS, effect([key], high))
          weaker.forEach((h, i) => {
            expect((stronger[i] as HorizonPrediction).logOdds).toBeGreaterThanOrEqual(h.logOdds - 1e-12)
          })
        },
      ),
      { numRuns: 1000 },
    )
  })

  it.each([
    ['mesh tubes where browse is 0', { animalProtection: 'mesh_tubes' }, { browsePressureIndex: 0 }],
    ['shade cards on a north aspect', { shade: 'shade_cards' }, { heatLoadIndex: 0.2, aspectDeg: 0 }],
    [
      'vegetation control under light cover',
      { vegetationControl: 'release_2yr' },
      { vegetationCoverPct: 10 },
    ],
    [
      'a stock type on a cool, moist north slope',
      { stockType: 'container' },
      { heatLoadIndex: 0.1, summerWaterDeficitMm: 20 },
    ],
  ])('change nothing where their factor is absent: %s', (_, request, where) => {
    const site = { ...STRESSED, ...where }
    const effects = effectsOf(request, 'manual')
    expect(effects.length).toBe(1)
    const untreated = model.predict(site, psme, 'manual')
    model.predict(site, psme, 'manual', HORIZONS, effects).forEach((h, i) => {
      const before = untreated[i] as HorizonPrediction
      expect(h.logOdds).toBe(before.logOdds)
      expect(h.uncertainty).toEqual(before.uncertainty)
      expect(h.treatment?.effectSd).toBe(0)
      for (const f of h.treatment?.factors ?? []) expect(f.contribution).toBe(f.untreatedContribution)
    })
    // …and the same treatment does act where its factor weighs.
    const acting = model.predict(STRESSED, psme, 'manual', HORIZONS, effects)
    expect(acting.every((h) => (h.treatment?.effectSd ?? 0) > 0)).toBe(true)
  })

  it('change nothing where the factor is absent, whatever the treatment (property)', () => {
    fc.assert(
      fc.property(siteArbitrary, speciesArbitrary, requestArbitrary, (site, species, request) => {
        const noBrowse = { ...site, browsePressureIndex: 0 }
        const withTubes = effectsOf({ ...request, animalProtection: 'mesh_tubes' }, 'manual')
        const withoutTubes = effectsOf({ ...request, animalProtection: 'none' }, 'manual')
        const a = model.predict(noBrowse, species, 'manual', HORIZONS, withTubes)
        const b = model.predict(noBrowse, species, 'manual', HORIZONS, withoutTubes)
        a.forEach((h, i) => {
          const other = b[i] as HorizonPrediction
          expect(Math.abs(h.logOdds - other.logOdds)).toBeLessThan(1e-12)
          expect(h.uncertainty.plantingYearSd).toBeCloseTo(other.uncertainty.plantingYearSd, 12)
        })
      }),
      { numRuns: 500 },
    )
  })

  it('keep survival from rising with the horizon, and hand planting ahead of drone seeding where it was', () => {
    fc.assert(
      fc.property(siteArbitrary, speciesArbitrary, requestArbitrary, (site, species, request) => {
        const manual = model.predict(site, species, 'manual', HORIZONS, effectsOf(request, 'manual'))
        const drone = model.predict(
          site,
          species,
          'drone_seeded',
          HORIZONS,
          effectsOf(request, 'drone_seeded'),
        )
        const sameTreatments = effectsOf({ vegetationControl: request.vegetationControl }, 'manual')
        const manualSame = model.predict(site, species, 'manual', HORIZONS, sameTreatments)
        const untreatedManual = model.predict(site, species, 'manual')
        const untreatedDrone = model.predict(site, species, 'drone_seeded')
        for (const series of [manual, drone]) {
          for (let i = 1; i < series.length; i++)
            expect((series[i] as HorizonPrediction).survivalProbability).toBeLessThanOrEqual(
              (series[i - 1] as HorizonPrediction).survivalProbability + 1e-12,
            )
        }
        HORIZONS.forEach((_, i) => {
          const wasAhead =
            (untreatedManual[i] as HorizonPrediction).logOdds >=
            (untreatedDrone[i] as HorizonPrediction).logOdds
          if (wasAhead)
            expect((manualSame[i] as HorizonPrediction).logOdds).toBeGreaterThanOrEqual(
              (drone[i] as HorizonPrediction).logOdds - 1e-12,
            )
        })
      }),
      { numRuns: 1000 },
    )
  })

  it('give drone seeding the gain hand planting gets (vegetation control), as the reference asks', () => {
    const effects = effectsOf({ vegetationControl: 'release_2yr' }, 'drone_seeded')
    const manualGain = model
      .predict(STRESSED, psme, 'manual', HORIZONS, effects)
      .map((h) => h.logOdds - (h.treatment?.untreatedLogOdds as number))
    const droneGain = model
      .predict(STRESSED, psme, 'drone_seeded', HORIZONS, effects)
      .map((h) => h.logOdds - (h.treatment?.untreatedLogOdds as number))
    droneGain.forEach((gain, i) => {
      expect(gain).toBeGreaterThan(0)
      expect(gain).toBeCloseTo(manualGain[i] as number, 12)
    })
  })

  it('widen the interval with the effect’s uncertainty: the same effect, less sure, gives a wider answer', () => {
    for (const key of ['competing_vegetation', 'browse_predation', 'heat_load']) {
      const sure = model.predict(STRESSED, psme, 'manual', HORIZONS, effect([key], 0.4, 0))
      const unsure = model.predict(STRESSED, psme, 'manual', HORIZONS, effect([key], 0.4, 0.2))
      const unsurer = model.predict(STRESSED, psme, 'manual', HORIZONS, effect([key], 0.4, 0.4))
      sure.forEach((h, i) => {
        const [a, b] = [unsure[i], unsurer[i]] as HorizonPrediction[]
        // The same point…
        expect(a?.logOdds).toBe(h.logOdds)
        expect(b?.logOdds).toBe(h.logOdds)
        // …with an interval wider the less sure the effect is.
        const width = (p: HorizonPrediction) => {
          const interval = survivalInterval(p.logOdds, p.uncertainty, 0.9)
          return logit(interval.upper) - logit(interval.lower)
        }
        expect(h.uncertainty).toEqual(model.uncertainty)
        expect(width(a as HorizonPrediction)).toBeGreaterThan(width(h))
        expect(width(b as HorizonPrediction)).toBeGreaterThan(width(a as HorizonPrediction))
        // The SD added is the share's SD times hand planting's penalty for the factor.
        const penalty =
          (h.treatment?.factors[0]?.contribution as number) -
          (h.treatment?.factors[0]?.untreatedContribution as number)
        expect(a?.treatment?.effectSd).toBeCloseTo((penalty / 0.4) * 0.2, 12)
      })
    }
  })

  it('take a stock type as an unsure effect on drought and heat: the same survival, a wider interval', () => {
    const effects = effectsOf({ stockType: 'bareroot' }, 'manual')
    const untreated = model.predict(STRESSED, psme, 'manual')
    model.predict(STRESSED, psme, 'manual', HORIZONS, effects).forEach((h, i) => {
      const before = untreated[i] as HorizonPrediction
      expect(h.logOdds).toBe(before.logOdds)
      // Its mean share is 0: no factor changes, so none is listed, but its range still widens the interval.
      expect(h.treatment?.factors).toEqual([])
      expect(h.treatment?.effectSd).toBeGreaterThan(0)
      expect(h.uncertainty.plantingYearSd).toBeGreaterThan(before.uncertainty.plantingYearSd)
      const treatedInterval = survivalInterval(h.logOdds, h.uncertainty, 0.9)
      const plainInterval = survivalInterval(before.logOdds, before.uncertainty, 0.9)
      expect(treatedInterval.lower).toBeLessThan(plainInterval.lower)
      expect(treatedInterval.upper).toBeGreaterThan(plainInterval.upper)
    })
  })

  it('combine on one factor as their remaining shares multiply (shade cards and a stock type on heat)', () => {
    const both = [...effect(['heat_load'], 0.3), ...effect(['heat_load'], 0.5)]
    const [h] = model.predict(STRESSED, psme, 'manual', [5], both)
    const [once] = model.predict(STRESSED, psme, 'manual', [5], effect(['heat_load'], 1 - 0.7 * 0.5))
    expect(h?.logOdds).toBeCloseTo(once?.logOdds as number, 12)
    expect(h?.treatment?.factors[0]?.treatments).toEqual(['test', 'test'])
  })

  it('compose with a calibrated version: its offset on the treated logit, both uncertainties in the interval', () => {
    const groups = SPECIES.flatMap((species) =>
      (['manual', 'drone_seeded'] as const).map((plantingMethod) => ({
        speciesCode: species.code,
        plantingMethod,
        offset: -0.3,
        interval: [-0.5, -0.1] as const,
        level: 0.9,
        plots: 12,
        trees: 600,
        variance: 0.04,
      })),
    )
    const calibrated = calibratedModel(model, {
      version: '0.2+cal.test',
      uncertainty: model.uncertainty,
      groups,
    })
    const effects = effectsOf({ vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' }, 'manual')
    const base = model.predict(STRESSED, psme, 'manual', HORIZONS, effects)
    calibrated.predict(STRESSED, psme, 'manual', HORIZONS, effects).forEach((h, i) => {
      const parent = base[i] as HorizonPrediction
      expect(h.logOdds).toBeCloseTo(parent.logOdds - 0.3, 12)
      expect(h.treatment?.untreatedLogOdds).toBeCloseTo(
        (parent.treatment?.untreatedLogOdds as number) - 0.3,
        12,
      )
      expect(h.treatment?.factors).toEqual(parent.treatment?.factors)
      const calibratedYearSd = Math.sqrt(0.8 ** 2 + 0.04)
      expect(h.treatment?.untreatedUncertainty.plantingYearSd).toBeCloseTo(calibratedYearSd, 12)
      expect(h.uncertainty.plantingYearSd).toBeCloseTo(
        Math.hypot(calibratedYearSd, parent.treatment?.effectSd as number),
        12,
      )
      const explained = h.contributions.reduce((sum, c) => sum + c.contribution, h.baselineLogOdds)
      expect(explained).toBeCloseTo(h.logOdds, 9)
    })
  })

  it('refuses an effect on a factor the model lacks, or one that removes more than the whole penalty', () => {
    expect(() => model.predict(STRESSED, psme, 'manual', HORIZONS, effect(['sunspots'], 0.2))).toThrow(
      /unknown factor/,
    )
    expect(() => model.predict(STRESSED, psme, 'manual', HORIZONS, effect(['slope'], 1.5))).toThrow(
      RangeError,
    )
  })
})
