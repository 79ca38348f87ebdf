import { describe, expect, it } from 'vitest'
import { forestSite } from '../../../test/support/fakes.ts'
import { polygon, rectangle } from '../../../test/support/geometry.ts'
import { shareOf, simulate } from '../../../test/support/stand-simulation.ts'
import { planner } from '../../../test/support/stocking-setup.ts'
import { model, species } from '../../../test/support/survival-model.ts'
import type { Site } from '../../types.ts'
import { TREATMENTS } from '../treatments.ts'
import type { PlantingOption, PlantingOptions } from './planting-options.ts'

/*
 * #46's honesty check: every option's claimed probability of meeting the standard, against outcomes
 * simulated from the model (test/support/stand-simulation.ts: a year effect, an effect per site,
 * clumped counts, and the treatments' effect error drawn once for the stand, its size by site).
 */

/** Draws per option: the simulated share’s standard error is at most 0.0046 (0.0027 near 0.9), so ±0.02 is > 4 SE. */
const DRAWS = 12_000
const TOLERANCE = 0.02

/** A hot, dry, brushy, browsed Coast Range site: every treatment has something to act on. */
const HOT = {
  zone: 'coast',
  heatLoadIndex: 0.9,
  summerWaterDeficitMm: 380,
  vegetationCoverPct: 80,
  browsePressureIndex: 0.8,
} as const
const POINT = { latitude: 44.6, longitude: -123.6 }
const PSME = [{ speciesCode: 'PSME', share: 1 }]

/** The option's probability of meeting the standard as the simulation finds it. */
function simulatedProbability(
  found: PlantingOptions,
  option: PlantingOption,
  sites: readonly Site[],
  seed: number,
): number {
  const t = option.treatments
  const applied = TREATMENTS.resolve(
    {
      vegetationControl: t.vegetation_control,
      animalProtection: t.animal_protection,
      stockType: t.stock_type,
      shade: t.shade,
    },
    option.method as 'manual' | 'drone_seeded',
  )
  const horizon = found.rule.horizonYears
  const atSites = sites.map(
    (site) =>
      model.predict(site, species('PSME'), option.method as 'manual', [horizon], applied?.modelEffects)[0],
  )
  const first = atSites[0]
  if (!first) throw new Error('no prediction')
  const { countable } = simulate(
    [{ share: 1, countsInFull: true, logOddsBySite: atSites.map((p) => p?.logOdds ?? Number.NaN) }],
    option.treesPerAcre,
    {
      draws: DRAWS,
      seed,
      terms: first.treatment?.untreatedUncertainty ?? first.uncertainty,
      effectSdBySite: atSites.map((p) => p?.treatment?.effectSd ?? 0),
    },
  )
  return shareOf(countable, (survivors) => survivors >= found.rule.minimumTreesPerAcre)
}

function everyOption(found: PlantingOptions): PlantingOption[] {
  return [...found.options, ...(found.cheapestFailing ? [found.cheapestFailing] : [])]
}

describe('the options’ claimed probabilities, against a simulation of the model', () => {
  it('hold within 2 points for every candidate at a point', async () => {
    const site = forestSite(POINT, HOT)
    const found = await planner({ site }).plans.options({ ...POINT, speciesMix: PSME })
    const options = everyOption(found)
    expect(options.length).toBeGreaterThanOrEqual(found.options.length)
    expect(found.options.length).toBeGreaterThan(3)
    options.forEach((option, i) => {
      const simulated = simulatedProbability(found, option, [site], i + 1)
      expect(Math.abs(simulated - option.probability), JSON.stringify(option.treatments)).toBeLessThan(
        TOLERANCE,
      )
      if (option.meetsConfidence) expect(simulated).toBeGreaterThan(found.confidence - TOLERANCE)
    })
  }, 120_000)

  it('hold within 2 points for a stand whose sites the treatments act on unequally', async () => {
    const sites = Array.from({ length: 6 }, (_, i) =>
      forestSite(
        { latitude: 44.51 + i * 0.01, longitude: -123.69 + (i % 3) * 0.02 },
        { ...HOT, id: 100 + i, browsePressureIndex: 0.2 + i * 0.15, vegetationCoverPct: 30 + i * 12 },
      ),
    )
    const found = await planner({ sites }).plans.options({
      stand: polygon(rectangle(-123.7, 44.5, -123.6, 44.6)),
      speciesMix: PSME,
    })
    expect(found.options.length).toBeGreaterThan(3)
    everyOption(found).forEach((option, i) => {
      const simulated = simulatedProbability(found, option, sites, 100 + i)
      expect(Math.abs(simulated - option.probability), JSON.stringify(option.treatments)).toBeLessThan(
        TOLERANCE,
      )
    })
  }, 240_000)
})
